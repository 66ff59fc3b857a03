#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_grpc::fuzz_support::row_filter(data);
});
