//! Each durability level reaches the OS / the disk when it promises to.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;
use crate::fs::FileSystem;
use crate::options::{Durability, WalOptions};
use crate::wal::format::{RECORD_HEADER_LEN, SEGMENT_HEADER_LEN};
use crate::wal::tests::support::{open, opts, replay, segment_path, simple_edit, TestFs};
use crate::wal::WalEdit;

fn record_len(edit: &WalEdit) -> u64 {
    let mut payload = Vec::new();
    edit.encode_payload(&mut payload);
    (RECORD_HEADER_LEN + payload.len()) as u64
}

fn on_disk_len(fs: &TestFs, dir: &std::path::Path, number: u64) -> u64 {
    fs.read_all(&segment_path(dir, number)).unwrap().len() as u64
}

#[test]
fn skip_wal_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(1 << 20)).unwrap();
    wal.append(&simple_edit(1, 1), Durability::SkipWal).unwrap();
    wal.sync().unwrap();
    assert_eq!(on_disk_len(&fs, dir.path(), 1), SEGMENT_HEADER_LEN as u64);
    let stats = wal.stats();
    assert_eq!((stats.skipped, stats.appends), (1, 0));
    wal.close().unwrap();
    assert!(replay(Arc::new(fs), dir.path()).unwrap().is_empty());
}

#[test]
fn sync_wal_is_handed_to_the_os_before_append_returns() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(1 << 20)).unwrap();
    let syncs_before = fs.ctl.syncs.load(Ordering::SeqCst);
    let edit = simple_edit(1, 1);
    wal.append(&edit, Durability::SyncWal).unwrap();
    // LocalFs keeps appended bytes in the process until flush, so the bytes being readable
    // proves the flush happened inside `append`.
    assert_eq!(
        on_disk_len(&fs, dir.path(), 1),
        SEGMENT_HEADER_LEN as u64 + record_len(&edit)
    );
    assert_eq!(
        fs.ctl.syncs.load(Ordering::SeqCst),
        syncs_before,
        "SyncWal must not fsync"
    );
    assert_eq!(wal.stats().flushes, 1);
    wal.close().unwrap();
}

#[test]
fn fsync_wal_is_synced_before_append_returns() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(1 << 20)).unwrap();
    let syncs_before = fs.ctl.syncs.load(Ordering::SeqCst);
    let stats_before = wal.stats().syncs;
    let edit = simple_edit(1, 1);
    wal.append(&edit, Durability::FsyncWal).unwrap();
    assert_eq!(fs.ctl.syncs.load(Ordering::SeqCst), syncs_before + 1);
    assert_eq!(wal.stats().syncs, stats_before + 1);
    assert_eq!(
        on_disk_len(&fs, dir.path(), 1),
        SEGMENT_HEADER_LEN as u64 + record_len(&edit)
    );
    wal.close().unwrap();
}

#[test]
fn async_wal_reaches_the_os_within_the_interval() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let interval = Duration::from_millis(300);
    let options = WalOptions {
        segment_size: 1 << 20,
        async_flush_interval: interval,
        ..WalOptions::default()
    };
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), options).unwrap();
    let edit = simple_edit(1, 1);
    let full_len = SEGMENT_HEADER_LEN as u64 + record_len(&edit);
    let clock = crate::util::clock::system();
    let started = clock.now();
    wal.append(&edit, Durability::AsyncWal).unwrap();
    let len_now = on_disk_len(&fs, dir.path(), 1);
    if clock.elapsed(started) < interval / 3 {
        assert_eq!(
            len_now, SEGMENT_HEADER_LEN as u64,
            "AsyncWal must not write inline"
        );
    }
    while on_disk_len(&fs, dir.path(), 1) < full_len {
        assert!(
            clock.elapsed(started) < interval * 5,
            "AsyncWal edit not flushed in time"
        );
        clock.sleep(Duration::from_millis(5));
    }
    wal.close().unwrap();
}

#[test]
fn sync_and_close_make_async_edits_durable() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(1 << 20)).unwrap();
    let first = simple_edit(1, 1);
    wal.append(&first, Durability::AsyncWal).unwrap();
    let syncs_before = fs.ctl.syncs.load(Ordering::SeqCst);
    wal.sync().unwrap();
    assert_eq!(fs.ctl.syncs.load(Ordering::SeqCst), syncs_before + 1);
    assert_eq!(
        on_disk_len(&fs, dir.path(), 1),
        SEGMENT_HEADER_LEN as u64 + record_len(&first)
    );
    wal.sync().unwrap();
    assert_eq!(
        fs.ctl.syncs.load(Ordering::SeqCst),
        syncs_before + 1,
        "nothing new to sync"
    );

    wal.append(&simple_edit(1, 2), Durability::AsyncWal)
        .unwrap();
    wal.close().unwrap();
    wal.close().unwrap();
    assert!(matches!(
        wal.append(&simple_edit(1, 3), Durability::SyncWal),
        Err(Error::Closed(_))
    ));
    assert!(matches!(
        wal.append(&simple_edit(1, 3), Durability::SkipWal),
        Err(Error::Closed(_))
    ));
    assert!(matches!(wal.sync(), Err(Error::Closed(_))));
    let seqs: Vec<u64> = replay(Arc::new(fs), dir.path())
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, vec![1, 2]);
}

#[test]
fn a_roll_leaves_the_old_segments_fsync_off_the_write_path() {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let mut o = opts(1 << 20);
    o.segment_size = 64; // roll after almost every edit
    o.async_flush_interval = Duration::from_secs(3600); // keep the background tick out of it
    let (wal, _) = open(Arc::new(fs.clone()), dir.path(), o).unwrap();
    let syncs = || fs.ctl.syncs.load(Ordering::SeqCst);
    let before = syncs();
    for seq in 1..=20 {
        wal.append(&simple_edit(1, seq), Durability::SyncWal)
            .unwrap();
    }
    let rolls = wal.stats().rolls;
    assert!(rolls >= 3, "the test needs rolls, got {rolls}");
    // Each roll creates a segment, whose header is synced; the full old segment is not.
    assert_eq!(
        syncs() - before,
        rolls,
        "rolls must not fsync the old segment inline"
    );
    let before_sync = syncs();
    wal.sync().unwrap();
    assert!(
        syncs() - before_sync >= rolls,
        "sync makes every rolled segment durable"
    );
    wal.close().unwrap();
    assert_eq!(replay(Arc::new(fs), dir.path()).unwrap().len(), 20);
}

/// Found by the background crash test: `sync()` must make durable an edit whose segment is
/// rolled by `sync()`'s own fsync batch (or any batch racing with it). The edit here fills
/// the segment, so the sync's batch rolls it; a strict power loss must still keep the edit.
#[test]
fn sync_covers_a_segment_rolled_by_the_sync_itself() {
    use crate::fs::{CrashOptions, MemFs};
    let fs = MemFs::new();
    let dir = std::path::Path::new("/wal");
    let mut o = opts(1 << 20);
    o.segment_size = 32; // one edit is enough to overfill a segment
    let (wal, _) = open(Arc::new(fs.clone()), dir, o).unwrap();
    wal.append(&simple_edit(1, 1), Durability::SyncWal).unwrap();
    let unsynced = fs.crash_power_loss_with(7, CrashOptions::strict());
    assert!(
        replay(Arc::new(unsynced), dir).unwrap().is_empty(),
        "SyncWal alone is not durable"
    );
    wal.sync().unwrap();
    let crashed = fs.crash_power_loss_with(7, CrashOptions::strict());
    let edits = replay(Arc::new(crashed), dir).unwrap();
    assert_eq!(edits.len(), 1, "a synced edit survives a power loss");
}
