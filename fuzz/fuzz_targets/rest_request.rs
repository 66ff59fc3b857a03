#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_rest::fuzz_support::rest_request(data);
});
