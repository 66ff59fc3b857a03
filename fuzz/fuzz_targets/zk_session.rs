#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_zk::fuzz_support::session_bytes(data);
});
