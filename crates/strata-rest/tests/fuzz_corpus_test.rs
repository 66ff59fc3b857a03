//! Replays the committed fuzz corpus and crash inputs of the REST request parsers (see
//! `fuzz/` and docs/reliability-fuzz.md) on stable Rust, so `cargo test` guards them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use strata_rest::fuzz_support;

#[path = "../../../fuzz/replay.rs"]
mod replay;

use replay::*;

#[test]
fn rest_request_corpus() {
    replay("rest_request", fuzz_support::rest_request);
}

/// Finding 1: a CellSet row without a key rendered as `key=""`, which parses back as an
/// empty key (a different CellSet).
#[test]
fn regression_rest_cellset_xml_row_without_key() {
    replay_one(
        "rest_request",
        "cellset_xml_row_without_key",
        fuzz_support::rest_request,
    );
}

/// Finding 2: quick-xml takes any bytes before `=` as an attribute name, and a prefix up to a
/// `:` was dropped, so a schema attribute rendered back under a different name.
#[test]
fn regression_rest_schema_xml_garbage_attribute_name() {
    replay_one(
        "rest_request",
        "schema_xml_garbage_attribute_name",
        fuzz_support::rest_request,
    );
}

/// Found while fixing finding 2: `a:x` and `b:x` both became `x`, rendered as a duplicate
/// attribute that does not parse again.
#[test]
fn regression_rest_schema_xml_same_local_attribute_name() {
    replay_one(
        "rest_request",
        "schema_xml_same_local_attribute_name",
        fuzz_support::rest_request,
    );
}
