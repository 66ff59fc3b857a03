#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_hrpc::fuzz_support::cell_block(data);
});
