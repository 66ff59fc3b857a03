//! Torn tails are cut off, in the newest segment and in older (broken) ones.

use std::path::Path;
use std::sync::Arc;

use crate::error::Error;
use crate::fs::{FileSystem, LocalFs};
use crate::options::Durability;
use crate::wal::format::{RECORD_HEADER_LEN, SEGMENT_HEADER_LEN};
use crate::wal::tests::support::{open, opts, replay, segment_numbers, segment_path, simple_edit};

/// A segment file holding edits 1..=n, and the offset where each record starts.
pub fn segment_with_edits(n: u64) -> (Vec<u8>, Vec<u64>) {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _) = open(Arc::new(LocalFs), dir.path(), opts(1 << 20)).unwrap();
    let mut offsets = Vec::new();
    let mut offset = SEGMENT_HEADER_LEN as u64;
    for seq in 1..=n {
        let edit = simple_edit(1, seq);
        wal.append(&edit, Durability::SyncWal).unwrap();
        offsets.push(offset);
        let mut payload = Vec::new();
        edit.encode_payload(&mut payload);
        offset += (RECORD_HEADER_LEN + payload.len()) as u64;
    }
    wal.close().unwrap();
    let bytes = LocalFs.read_all(&segment_path(dir.path(), 1)).unwrap();
    assert_eq!(bytes.len() as u64, offset);
    (bytes, offsets)
}

pub fn write_file(path: &Path, bytes: &[u8]) {
    let mut file = LocalFs.create(path).unwrap();
    file.append(bytes).unwrap();
    file.sync().unwrap();
}

fn replayed_seqs(dir: &Path) -> Vec<u64> {
    replay(Arc::new(LocalFs), dir)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect()
}

#[test]
fn cut_at_every_offset_inside_the_last_record() {
    let (bytes, offsets) = segment_with_edits(5);
    let last = offsets[4] as usize;
    for cut in last..bytes.len() {
        let dir = tempfile::tempdir().unwrap();
        let path = segment_path(dir.path(), 1);
        write_file(&path, &bytes[..cut]);
        assert_eq!(replayed_seqs(dir.path()), vec![1, 2, 3, 4], "cut at {cut}");
        assert_eq!(
            LocalFs.file_size(&path).unwrap(),
            last as u64,
            "cut at {cut}"
        );
    }
}

#[test]
fn bad_checksum_on_the_last_record_is_a_torn_tail() {
    let (mut bytes, offsets) = segment_with_edits(5);
    let last_payload_byte = bytes.len() - 1;
    bytes[last_payload_byte] ^= 0xff;
    let dir = tempfile::tempdir().unwrap();
    let path = segment_path(dir.path(), 1);
    write_file(&path, &bytes);
    assert_eq!(replayed_seqs(dir.path()), vec![1, 2, 3, 4]);
    assert_eq!(LocalFs.file_size(&path).unwrap(), offsets[4]);
}

#[test]
fn zero_filled_tail_is_cut_off() {
    let (mut bytes, _) = segment_with_edits(3);
    let valid_len = bytes.len() as u64;
    bytes.extend_from_slice(&[0u8; 100]);
    let dir = tempfile::tempdir().unwrap();
    let path = segment_path(dir.path(), 1);
    write_file(&path, &bytes);
    assert_eq!(replayed_seqs(dir.path()), vec![1, 2, 3]);
    assert_eq!(LocalFs.file_size(&path).unwrap(), valid_len);
}

#[test]
fn torn_tail_in_an_older_segment_is_cut_and_replay_goes_on() {
    let (bytes, offsets) = segment_with_edits(3);
    let dir = tempfile::tempdir().unwrap();
    write_file(&segment_path(dir.path(), 1), &bytes[..bytes.len() - 2]);
    // Segment 2 holds edits 1..=3 again, under its own header.
    let mut second = crate::wal::format::encode_segment_header(2).to_vec();
    second.extend_from_slice(&bytes[SEGMENT_HEADER_LEN..]);
    write_file(&segment_path(dir.path(), 2), &second);
    assert_eq!(replayed_seqs(dir.path()), vec![1, 2, 1, 2, 3]);
    assert_eq!(
        LocalFs.file_size(&segment_path(dir.path(), 1)).unwrap(),
        offsets[2]
    );
    assert_eq!(
        LocalFs.file_size(&segment_path(dir.path(), 2)).unwrap(),
        second.len() as u64
    );
}

#[test]
fn torn_or_empty_newest_header_is_removed() {
    let (bytes, _) = segment_with_edits(2);
    for newest_len in [0usize, 1, SEGMENT_HEADER_LEN - 1] {
        let dir = tempfile::tempdir().unwrap();
        write_file(&segment_path(dir.path(), 1), &bytes);
        let header = crate::wal::format::encode_segment_header(2);
        write_file(&segment_path(dir.path(), 2), &header[..newest_len]);
        assert_eq!(
            replayed_seqs(dir.path()),
            vec![1, 2],
            "newest header of {newest_len} bytes"
        );
        // Segment 2 is gone; the reopen created segment 3 above it.
        assert_eq!(segment_numbers(dir.path()), vec![1, 3]);
    }
}

#[test]
fn torn_header_of_an_older_segment_is_corruption() {
    let (bytes, _) = segment_with_edits(2);
    let dir = tempfile::tempdir().unwrap();
    write_file(&segment_path(dir.path(), 1), &bytes[..10]);
    write_file(
        &segment_path(dir.path(), 2),
        &crate::wal::format::encode_segment_header(2),
    );
    match open(Arc::new(LocalFs), dir.path(), opts(1 << 20)) {
        Err(Error::Corruption { path, offset, .. }) => {
            assert_eq!(path, segment_path(dir.path(), 1));
            assert_eq!(offset, 0);
        }
        other => panic!("expected corruption, got {:?}", other.map(|(_, e)| e)),
    }
}
