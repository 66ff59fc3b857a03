//! Replays the committed fuzz corpora and crash inputs of the engine's decoders (see
//! `fuzz/` and docs/reliability-fuzz.md) on stable Rust, so `cargo test` guards them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use strata_engine::fuzz_support;

/// Every input committed for `target`: its seed corpus (`fuzz/corpus/<target>`) and the
/// crashes it found (`fuzz/regressions/<target>`, kept after their fix).
// Reading the committed corpus is the point of this test; the engine's FileSystem is for the
// database's own files.
#[allow(clippy::disallowed_methods)]
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut out = Vec::new();
    for kind in ["corpus", "regressions"] {
        let dir = root.join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            out.push((path.display().to_string(), bytes));
        }
    }
    out.sort();
    assert!(
        !out.is_empty(),
        "no committed inputs for fuzz target {target}"
    );
    out
}

/// Replays one committed input of `target` by file name.
#[allow(dead_code)]
fn replay_one(target: &str, name: &str, entry: fn(&[u8])) {
    let found: Vec<_> = inputs(target)
        .into_iter()
        .filter(|(path, _)| path.ends_with(name))
        .collect();
    assert_eq!(found.len(), 1, "{target}/{name} is committed once");
    entry(&found[0].1);
}

/// Replays every committed input of `target` through `entry`, naming the one that panics.
fn replay(target: &str, entry: fn(&[u8])) {
    for (name, bytes) in inputs(target) {
        let outcome = std::panic::catch_unwind(|| entry(&bytes));
        assert!(outcome.is_ok(), "{target}: input {name} fails");
    }
}

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
    let edit = strata_engine::wal::WalEdit::decode_payload(&bytes::Bytes::from_static(bytes))
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
