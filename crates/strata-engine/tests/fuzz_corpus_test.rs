//! Replays the committed fuzz corpora and crash inputs of the engine's decoders (see
//! `fuzz/` and docs/reliability-fuzz.md) on stable Rust, so `cargo test` guards them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use strata_engine::fuzz_support;

#[path = "../../../fuzz/replay.rs"]
mod replay;

use replay::*;

#[test]
fn wal_segment_corpus() {
    replay("wal_segment", fuzz_support::wal_segment);
}

#[test]
fn wal_edit_corpus() {
    replay("wal_edit", fuzz_support::wal_edit);
}

#[test]
fn sst_block_corpus() {
    replay("sst_block", fuzz_support::sst_block);
}

#[test]
fn sst_index_corpus() {
    replay("sst_index", fuzz_support::sst_index);
}

#[test]
fn sst_file_corpus() {
    replay("sst_file", fuzz_support::sst_file);
}

/// Found by the wal_edit target: `ff ff 00` is an over-long varint that decodes (Strata
/// writes only shortest varints, and the record CRC keeps foreign bytes out), so a decoded
/// edit may re-encode shorter. Replay must still agree with itself.
#[test]
fn regression_wal_edit_overlong_varint() {
    let bytes = b"\xae\xa7\x02\xff\xf6\xa5\xa5\xa5\xa5\xff\xff\x00\x00";
    let edit = strata_engine::codec::WalEdit::decode_payload(&bytes::Bytes::from_static(bytes))
        .expect("the over-long varint is accepted");
    let mut again = Vec::new();
    edit.encode_payload(&mut again);
    assert!(
        again.len() < bytes.len(),
        "the shortest encoding is shorter"
    );
    fuzz_support::wal_edit(bytes);
}

/// Found by the sst_block target: a damaged block whose restart offsets disagree with its
/// entries walks fine from the start but seeks to the wrong key. The reader trusts restart
/// offsets (the block CRC protects them); the target now checks seeks on rebuilt blocks.
#[test]
fn regression_sst_block_seek_in_a_damaged_block() {
    replay_one(
        "sst_block",
        "seek_misses_key_in_damaged_block",
        fuzz_support::sst_block,
    );
}
