//! Group commit: concurrent writers share syncs, and every acknowledged edit is replayed
//! exactly once.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::options::Durability;
use crate::wal::tests::support::{open, opts, replay, simple_edit, TestFs};

const THREADS: u64 = 16;
const PER_THREAD: u64 = 40;

fn run_writers(
    fs: &TestFs,
    dir: &std::path::Path,
    pick: fn(u64) -> Durability,
) -> BTreeMap<(u64, u64), usize> {
    let (wal, _) = open(Arc::new(fs.clone()), dir, opts(16 * 1024)).unwrap();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let wal = &wal;
            s.spawn(move || {
                for i in 0..PER_THREAD {
                    let seq = t * 1000 + i;
                    wal.append(&simple_edit(t, seq), pick(seq)).unwrap();
                }
            });
        }
    });
    let stats = wal.stats();
    assert_eq!(stats.appends, THREADS * PER_THREAD);
    wal.close().unwrap();
    let mut seen = BTreeMap::new();
    for edit in replay(Arc::new(fs.clone()), dir).unwrap() {
        assert_eq!(
            edit,
            crate::wal::tests::support::as_replayed(&simple_edit(edit.region_id, edit.seq))
        );
        *seen.entry((edit.region_id, edit.seq)).or_insert(0) += 1;
    }
    seen
}

fn assert_all_once(seen: &BTreeMap<(u64, u64), usize>) {
    assert_eq!(seen.len() as u64, THREADS * PER_THREAD);
    for t in 0..THREADS {
        for i in 0..PER_THREAD {
            assert_eq!(seen.get(&(t, t * 1000 + i)), Some(&1), "edit {t}/{i}");
        }
    }
}

#[test]
fn concurrent_fsync_writers_share_syncs() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    // A slow sync lets the other writers pile up behind the leader, as on a real disk.
    fs.ctl.sync_delay_micros.store(2000, Ordering::SeqCst);
    let seen = run_writers(&fs, dir.path(), |_| Durability::FsyncWal);
    assert_all_once(&seen);
    let syncs = fs.ctl.syncs.load(Ordering::SeqCst);
    let appends = THREADS * PER_THREAD;
    assert!(
        syncs * 4 < appends,
        "{syncs} syncs for {appends} appends: no group commit"
    );
}

#[test]
fn concurrent_mixed_durability_writers_all_replay_once() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    fs.ctl.sync_delay_micros.store(200, Ordering::SeqCst);
    let seen = run_writers(&fs, dir.path(), |seq| match seq % 3 {
        0 => Durability::AsyncWal,
        1 => Durability::SyncWal,
        _ => Durability::FsyncWal,
    });
    assert_all_once(&seen);
}
