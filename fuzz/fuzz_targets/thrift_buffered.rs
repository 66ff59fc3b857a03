#![no_main]

libfuzzer_sys::fuzz_target!(
    init: {
        // The server contains pilota's decoder panics with catch_unwind (src/codec.rs);
        // libfuzzer-sys's panic hook would abort on those before they are caught. Uncaught
        // panics still abort: the harness itself treats an escaping panic as a crash.
        let _ = std::panic::take_hook();
    },
    |data: &[u8]| {
        strata_thrift::fuzz_support::buffered(data);
    }
);
