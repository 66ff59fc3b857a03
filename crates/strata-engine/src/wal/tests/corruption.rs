//! Damage in the middle of a segment is a hard error naming the file and offset.

use std::sync::Arc;

use crate::error::Error;
use crate::fs::LocalFs;
use crate::wal::format::{encode_record, RECORD_HEADER_LEN, RECORD_TYPE_EDIT};
use crate::wal::tests::support::{open, opts, segment_path};
use crate::wal::tests::torn::{segment_with_edits, write_file};

fn expect_corruption(bytes: &[u8], want_offset: u64, want_reason: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = segment_path(dir.path(), 1);
    write_file(&path, bytes);
    match open(Arc::new(LocalFs), dir.path(), opts(1 << 20)) {
        Err(Error::Corruption {
            path: p,
            offset,
            reason,
        }) => {
            assert_eq!(p, path);
            assert_eq!(offset, want_offset, "{reason}");
            assert!(reason.contains(want_reason), "{reason}");
        }
        other => panic!("expected corruption, got {:?}", other.map(|(_, e)| e.len())),
    }
}

#[test]
fn flipped_byte_in_an_early_record_is_corruption() {
    let (bytes, offsets) = segment_with_edits(5);
    // Every byte of record 2 except its length field (which moves the framing instead).
    for at in offsets[1] as usize + 4..offsets[2] as usize {
        let mut bad = bytes.clone();
        bad[at] ^= 0x01;
        expect_corruption(&bad, offsets[1], "");
    }
}

#[test]
fn valid_checksum_but_undecodable_payload_is_corruption() {
    let (bytes, offsets) = segment_with_edits(2);
    let mut bad = bytes[..offsets[1] as usize].to_vec();
    let broken = encode_record(RECORD_TYPE_EDIT, |b| b.extend_from_slice(&[1, 2, 9])).unwrap();
    bad.extend_from_slice(&broken);
    expect_corruption(&bad, offsets[1], "bad edit");
}

#[test]
fn unknown_record_type_is_corruption() {
    let (bytes, offsets) = segment_with_edits(2);
    let mut bad = bytes[..offsets[1] as usize].to_vec();
    bad.extend_from_slice(&encode_record(9, |b| b.push(0)).unwrap());
    bad.extend_from_slice(&bytes[offsets[1] as usize..]);
    expect_corruption(&bad, offsets[1], "unknown record type 9");
}

#[test]
fn bad_checksum_with_a_valid_record_after_is_corruption() {
    let (bytes, offsets) = segment_with_edits(3);
    // Damage record 2's checksum; record 3 still parses, so this is not a torn tail.
    let mut bad = bytes.clone();
    bad[offsets[1] as usize + 4] ^= 0xff;
    expect_corruption(&bad, offsets[1], "valid record follows");
    assert!(offsets[1] as usize + RECORD_HEADER_LEN < offsets[2] as usize);
}

#[test]
fn bad_header_magic_is_corruption() {
    let (mut bytes, _) = segment_with_edits(2);
    bytes[0] = b'X';
    expect_corruption(&bytes, 0, "magic");
}
