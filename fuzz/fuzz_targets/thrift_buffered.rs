#![no_main]

libfuzzer_sys::fuzz_target!(
    init: {
        // The server contains pilota's decoder panics with catch_unwind (src/codec.rs), but
        // libfuzzer-sys's panic hook aborts before they are caught. A silent hook lets them
        // be caught; a panic that escapes still aborts (the harness catches it and aborts),
        // and replaying the saved input on stable shows its message.
        std::panic::set_hook(Box::new(|_| {}));
    },
    |data: &[u8]| {
        strata_thrift::fuzz_support::buffered(data);
    }
);
