#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_engine::fuzz_support::sst_file(data);
});
