//! `WalOptions::min_durability` raises the durability of every logged write.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::options::{Durability, WalOptions};
use crate::wal::tests::support::{open, opts, simple_edit, TestFs};

fn fsync_floor() -> WalOptions {
    WalOptions {
        min_durability: Durability::FsyncWal,
        ..opts(1 << 20)
    }
}

#[test]
fn a_fsync_floor_fsyncs_sync_wal_writes() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), fsync_floor()).unwrap();
    let syncs_before = fs.ctl.syncs.load(Ordering::SeqCst);
    wal.append(&simple_edit(1, 1), Durability::SyncWal).unwrap();
    assert_eq!(fs.ctl.syncs.load(Ordering::SeqCst), syncs_before + 1);
    wal.close().unwrap();
}

#[test]
fn a_fsync_floor_leaves_skip_wal_unlogged() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), fsync_floor()).unwrap();
    wal.append(&simple_edit(1, 1), Durability::SkipWal).unwrap();
    let stats = wal.stats();
    assert_eq!((stats.skipped, stats.appends), (1, 0));
    wal.close().unwrap();
}

#[test]
fn the_default_floor_keeps_sync_wal_unsynced() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(1 << 20)).unwrap();
    let syncs_before = fs.ctl.syncs.load(Ordering::SeqCst);
    wal.append(&simple_edit(1, 1), Durability::SyncWal).unwrap();
    assert_eq!(fs.ctl.syncs.load(Ordering::SeqCst), syncs_before);
    wal.close().unwrap();
}
