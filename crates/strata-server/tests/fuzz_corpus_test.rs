//! Replays the committed fuzz corpus and crash inputs of the filter-language parser (see
//! `fuzz/` and docs/reliability-fuzz.md) on stable Rust, so `cargo test` guards them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use strata_server::fuzz_support;

#[path = "../../../fuzz/replay.rs"]
mod replay;

use replay::*;

#[test]
fn filter_parse_corpus() {
    replay("filter_parse", fuzz_support::filter_parse);
}
