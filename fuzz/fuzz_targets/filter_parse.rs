#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_server::fuzz_support::filter_parse(data);
});
