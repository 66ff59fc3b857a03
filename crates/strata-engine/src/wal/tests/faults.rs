//! Failed writes, flushes and syncs: the writer gets the error, the WAL moves on to a new
//! segment, and replay sees every acknowledged edit.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::error::Error;
use crate::options::Durability;
use crate::wal::tests::support::{open, opts, replay, segment_numbers, simple_edit, TestFs};

fn seqs(fs: &TestFs, dir: &std::path::Path) -> Vec<u64> {
    replay(Arc::new(fs.clone()), dir)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect()
}

#[test]
fn failed_append_is_reported_and_the_next_goes_to_a_new_segment() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(1 << 20)).unwrap();
    wal.append(&simple_edit(1, 1), Durability::SyncWal).unwrap();
    assert_eq!(wal.active_segment(), Some(1));

    fs.ctl.fail_writes.store(true, Ordering::SeqCst);
    let err = wal
        .append(&simple_edit(1, 2), Durability::SyncWal)
        .unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
    assert_eq!(wal.active_segment(), None);
    // While the disk is down, creating the next segment fails too.
    assert!(wal
        .append(&simple_edit(1, 3), Durability::FsyncWal)
        .is_err());

    fs.ctl.fail_writes.store(false, Ordering::SeqCst);
    wal.append(&simple_edit(1, 4), Durability::FsyncWal)
        .unwrap();
    assert_eq!(wal.active_segment(), Some(2));
    assert_eq!(wal.stats().write_errors, 1);
    wal.close().unwrap();
    assert_eq!(seqs(&fs, dir.path()), vec![1, 4]);
}

#[test]
fn torn_write_leaves_a_tail_that_replay_cuts_off() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(1 << 20)).unwrap();
    wal.append(&simple_edit(1, 1), Durability::SyncWal).unwrap();
    fs.ctl.tear_appends.store(true, Ordering::SeqCst);
    assert!(wal.append(&simple_edit(1, 2), Durability::SyncWal).is_err());
    fs.ctl.tear_appends.store(false, Ordering::SeqCst);
    wal.append(&simple_edit(1, 3), Durability::SyncWal).unwrap();
    wal.close().unwrap();
    assert_eq!(segment_numbers(dir.path()), vec![1, 2]);
    assert_eq!(seqs(&fs, dir.path()), vec![1, 3]);
}

#[test]
fn failed_sync_is_not_acknowledged_but_earlier_edits_survive() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(1 << 20)).unwrap();
    wal.append(&simple_edit(1, 1), Durability::FsyncWal)
        .unwrap();
    fs.ctl.fail_syncs.store(true, Ordering::SeqCst);
    assert!(wal
        .append(&simple_edit(1, 2), Durability::FsyncWal)
        .is_err());
    assert!(
        wal.sync().is_ok(),
        "no segment is active, so there is nothing left to sync"
    );
    fs.ctl.fail_syncs.store(false, Ordering::SeqCst);
    wal.append(&simple_edit(1, 3), Durability::FsyncWal)
        .unwrap();
    wal.close().unwrap();
    // Edit 2 reached the OS before its sync failed: it may be replayed, it was never acked.
    let replayed = seqs(&fs, dir.path());
    assert!(
        replayed == vec![1, 2, 3] || replayed == vec![1, 3],
        "{replayed:?}"
    );
}

#[test]
fn concurrent_writers_during_a_failure_never_hang_and_acked_edits_replay() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    fs.ctl.sync_delay_micros.store(300, Ordering::SeqCst);
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(8 * 1024)).unwrap();
    let acked = std::sync::Mutex::new(BTreeSet::new());
    let failed = std::sync::Mutex::new(BTreeSet::new());
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (wal, acked, failed, fs) = (&wal, &acked, &failed, &fs);
            s.spawn(move || {
                for i in 0..60u64 {
                    let seq = t * 1000 + i;
                    if t == 0 && i % 20 == 10 {
                        fs.ctl.tear_appends.store(true, Ordering::SeqCst);
                    }
                    if t == 0 && i % 20 == 12 {
                        fs.ctl.tear_appends.store(false, Ordering::SeqCst);
                    }
                    match wal.append(&simple_edit(t, seq), Durability::FsyncWal) {
                        Ok(()) => acked.lock().unwrap().insert(seq),
                        Err(_) => failed.lock().unwrap().insert(seq),
                    };
                }
            });
        }
    });
    fs.ctl.tear_appends.store(false, Ordering::SeqCst);
    wal.close().unwrap();
    let acked = acked.into_inner().unwrap();
    let failed = failed.into_inner().unwrap();
    assert!(!failed.is_empty(), "the injected failures hit nobody");
    let replayed: Vec<u64> = seqs(&fs, dir.path());
    let replayed_set: BTreeSet<u64> = replayed.iter().copied().collect();
    assert_eq!(
        replayed.len(),
        replayed_set.len(),
        "an edit was replayed twice"
    );
    assert!(
        acked.is_subset(&replayed_set),
        "lost acked: {:?}",
        acked.difference(&replayed_set)
    );
    // A torn batch may still hold whole records of unacknowledged edits, never others.
    let attempted: BTreeSet<u64> = acked.union(&failed).copied().collect();
    assert!(replayed_set.is_subset(&attempted));
}
