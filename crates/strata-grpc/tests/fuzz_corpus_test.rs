//! Replays the committed fuzz corpus and crash inputs of RowFilter validation (see `fuzz/`
//! and docs/reliability-fuzz.md) on stable Rust, so `cargo test` guards them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use strata_grpc::fuzz_support;

#[path = "../../../fuzz/replay.rs"]
mod replay;

use replay::*;

#[test]
fn grpc_row_filter_corpus() {
    replay("grpc_row_filter", fuzz_support::row_filter);
}
