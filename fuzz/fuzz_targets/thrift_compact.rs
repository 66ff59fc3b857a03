#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_thrift::fuzz_support::compact(data);
});
