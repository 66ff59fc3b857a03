//! Replays the committed fuzz corpora and crash inputs of the Thrift request decoders (see
//! `fuzz/` and docs/reliability-fuzz.md) on stable Rust, so `cargo test` guards them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use strata_thrift::binary_check::{check_binary_message, CheckError};
use strata_thrift::codec::MakeCompatCodec;
use strata_thrift::fuzz_support;
use strata_thrift::gen::volo_gen::hbase::HbaseRequestRecv;
use volo_thrift::codec::default::{MakeZeroCopyCodec, ZeroCopyDecoder};
use volo_thrift::context::ServerContext;
use volo_thrift::Protocol;

#[path = "../../../fuzz/replay.rs"]
mod replay;

use replay::*;

#[test]
fn thrift_compact_corpus() {
    replay("thrift_compact", fuzz_support::compact);
}

#[test]
fn thrift_framed_corpus() {
    replay("thrift_framed", fuzz_support::framed);
}

#[test]
fn thrift_buffered_corpus() {
    replay("thrift_buffered", fuzz_support::buffered);
}

/// Found by the thrift_framed target: a framed binary request whose string length runs past
/// the end of the frame panicked inside pilota's reader (unchecked `split_to`); it is now
/// rejected as invalid data before volo decodes it (src/binary_check.rs).
#[test]
fn regression_framed_string_length_past_the_end() {
    replay_one(
        "thrift_framed",
        "string_length_past_frame_end",
        fuzz_support::framed,
    );
    replay_one(
        "thrift_buffered",
        "string_length_past_frame_end",
        fuzz_support::buffered,
    );
}

/// Found by the thrift_framed target after the first fix: a map declaring i64 values where
/// the schema has strings; the generated decoder reads a string anyway and pilota panics.
/// The sync decode is now run under `catch_unwind` and fails as invalid data.
#[test]
fn regression_framed_map_value_type_lies() {
    replay_one("thrift_framed", "map_value_type_lies", fuzz_support::framed);
    // The same through the compact path (transcoded, then decoded as binary).
    replay_one(
        "thrift_framed",
        "compact_list_type_lies",
        fuzz_support::framed,
    );
}

/// Found by the thrift_buffered target: an unframed binary request whose method-name length
/// is negative made volo's async reader panic allocating it (and a large positive length
/// made it allocate up to 2 GiB before reading). Unframed binary messages are now walked
/// and length-checked before any allocation (`request_reader.rs`).
#[test]
fn regression_buffered_negative_name_length() {
    replay_one(
        "thrift_buffered",
        "negative_name_length_unframed",
        fuzz_support::buffered,
    );
}

/// Found by the thrift_buffered target: a frame header with a negative length made volo's
/// framed decoder panic (`size as usize + 4` overflow, then a huge allocation). The server now
/// reads frames itself (`request_reader.rs`) and refuses such a length with an exception
/// before allocating; hostile_test checks that over the wire.
#[test]
fn regression_buffered_negative_frame_length() {
    replay_one(
        "thrift_buffered",
        "compact_then_lying_list",
        fuzz_support::buffered,
    );
}

/// Finding 7 (docs/reliability-fuzz.md), found by the thrift_framed target: getRow's
/// attributes map declared (string, i64) entries where the IDL has map<Text, Text>. The
/// generated decoder reads by the IDL's types anyway, took string bytes for the count of a
/// later map and reserved ~139 GB; the failed allocation aborted the whole process. The
/// request check now walks known methods by the IDL (src/schema_check.rs) and rejects the
/// container before pilota sees it.
#[test]
fn regression_framed_map_type_lie_then_huge_count() {
    let name = "map_type_lie_then_huge_count";
    replay_one("thrift_framed", name, fuzz_support::framed);
    let (_, payload) = inputs("thrift_framed")
        .into_iter()
        .find(|(path, _)| path.ends_with(name))
        .unwrap();
    let expected = "getRow: field 3 declares map<string, i64>, the schema says map<binary, binary>";
    let err = check_binary_message(&payload).unwrap_err();
    assert_eq!(err, CheckError::Invalid(expected.into()));

    let (_, mut decoder) = MakeCompatCodec::new(Protocol::Binary).make_codec();
    let mut bytes = Bytes::from(payload.clone());
    let decoded = decoder.decode::<HbaseRequestRecv, _>(&mut ServerContext::default(), &mut bytes);
    let Err(err) = decoded else {
        panic!("the request decoded");
    };
    assert!(err.to_string().contains(expected), "{err}");
    // The same bytes unframed (the buffered path walks them the same way).
    fuzz_support::buffered(&payload);
}
