//! `mark_flushed` deletes exactly the closed segments whose edits are all flushed.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::options::Durability;
use crate::wal::tests::support::{open, opts, segment_numbers, simple_edit, TestFs};

#[test]
fn deletes_exactly_the_fully_flushed_closed_segments() {
    let dir = tempfile::tempdir().unwrap();
    let fs = Arc::new(TestFs::default());
    let (wal, _) = open(fs.clone(), dir.path(), opts(300)).unwrap();
    // Seqs arrive slightly out of order, as from several regions: the segment keeps the max.
    let mut max_seq: BTreeMap<u64, u64> = BTreeMap::new();
    for i in 0..60u64 {
        let seq = if i % 2 == 0 { i * 10 + 15 } else { i * 10 };
        wal.append(&simple_edit(i % 3, seq), Durability::SyncWal)
            .unwrap();
        let segment = wal.active_segment().unwrap();
        let entry = max_seq.entry(segment).or_insert(0);
        *entry = (*entry).max(seq);
    }
    let active = wal.active_segment().unwrap();
    assert!(
        max_seq.len() >= 4,
        "expected several segments, got {max_seq:?}"
    );
    assert_eq!(
        segment_numbers(dir.path()),
        max_seq.keys().copied().collect::<Vec<_>>()
    );

    for cutoff in [0u64, 100, 251, 300, 455] {
        let before = segment_numbers(dir.path());
        let expect_gone: Vec<u64> = before
            .iter()
            .copied()
            .filter(|n| *n != active && max_seq[n] < cutoff)
            .collect();
        let deleted = wal.mark_flushed(cutoff).unwrap();
        assert_eq!(deleted, expect_gone.len(), "cutoff {cutoff}");
        let after = segment_numbers(dir.path());
        let expected: Vec<u64> = before
            .into_iter()
            .filter(|n| !expect_gone.contains(n))
            .collect();
        assert_eq!(after, expected, "cutoff {cutoff}");
    }
    assert_eq!(
        wal.stats().segments,
        segment_numbers(dir.path()).len() as u64
    );

    // The active segment survives even a cutoff above every seq.
    wal.mark_flushed(u64::MAX).unwrap();
    assert_eq!(segment_numbers(dir.path()), vec![active]);
    assert_eq!(wal.stats().segments, 1);
    wal.close().unwrap();
}

#[test]
fn replayed_segments_keep_their_max_seq() {
    let dir = tempfile::tempdir().unwrap();
    let fs = Arc::new(TestFs::default());
    let (wal, _) = open(fs.clone(), dir.path(), opts(1 << 20)).unwrap();
    wal.append(&simple_edit(1, 50), Durability::SyncWal)
        .unwrap();
    wal.append(&simple_edit(2, 7), Durability::SyncWal).unwrap();
    wal.close().unwrap();

    let (wal, replayed) = open(fs.clone(), dir.path(), opts(1 << 20)).unwrap();
    assert_eq!(replayed.len(), 2);
    assert_eq!(segment_numbers(dir.path()), vec![1, 2]);
    // Segment 1's max is 50, not its last seq 7.
    assert_eq!(wal.mark_flushed(8).unwrap(), 0);
    assert_eq!(wal.mark_flushed(50).unwrap(), 0);
    assert_eq!(wal.mark_flushed(51).unwrap(), 1);
    assert_eq!(segment_numbers(dir.path()), vec![2]);
    wal.close().unwrap();
}
