//! WAL groups on an in-memory filesystem: where groups live, which log holds which region,
//! replay across groups, leftover directories after the group count changed.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use super::{open_groups, WalGroups};
use crate::error::Error;
use crate::fs::{FileSystem, MemFs, StoragePolicy, StorageType, Tiered, Volume, Volumes};
use crate::options::{Durability, WalGroupCount, WalOptions};
use crate::wal::tests::support::simple_edit;
use crate::wal::{Wal, WalEdit};

/// Two SSD volumes and an HDD, the WAL on SSD.
fn volumes(fs: &MemFs) -> Volumes {
    let list = vec![
        Volume::new("a", "/a", StorageType::Ssd),
        Volume::new("h", "/h", StorageType::Hdd),
        Volume::new("b", "/b", StorageType::Ssd),
    ];
    let policy = Arc::new(Tiered::new(StoragePolicy::Hot, StoragePolicy::AllSsd));
    Volumes::new(Arc::new(fs.clone()), list, policy).unwrap()
}

fn options(groups: WalGroupCount) -> WalOptions {
    WalOptions {
        groups,
        ..WalOptions::default()
    }
}

/// Opens the groups and returns them with the edits replayed, in replay order.
fn open(fs: &MemFs, groups: usize) -> crate::error::Result<(WalGroups, Vec<WalEdit>)> {
    let mut replayed = Vec::new();
    let wal = open_groups(
        &volumes(fs),
        crate::util::clock::system(),
        &options(WalGroupCount::Fixed(groups)),
        &mut |edit| {
            replayed.push(edit);
            Ok(())
        },
    )?;
    Ok((wal, replayed))
}

/// Logs one edit of each region in `regions`, with seqs from `first_seq` on.
fn log(wal: &WalGroups, regions: &[u64], first_seq: u64) {
    for (i, &region) in regions.iter().enumerate() {
        let edit = simple_edit(region, first_seq + i as u64);
        wal.for_region(region)
            .append(&edit, Durability::SyncWal)
            .unwrap();
    }
}

fn dirs(wal: &WalGroups) -> Vec<(Option<usize>, String, String)> {
    wal.group_stats()
        .into_iter()
        .map(|g| (g.group, g.volume, g.dir))
        .collect()
}

#[test]
fn groups_take_turns_over_the_volumes_of_the_wal_storage_type() {
    let fs = MemFs::new();
    let (wal, _) = open(&fs, 3).unwrap();
    let expected = [
        (Some(0), "a", "/a/wal"),
        (Some(1), "b", "/b/wal-group-1"),
        (Some(2), "a", "/a/wal-group-2"),
    ]
    .map(|(g, v, d)| (g, v.to_string(), d.to_string()));
    assert_eq!(dirs(&wal), expected);
    assert_eq!((wal.group_of(7), wal.group_of(9)), (1, 0));
    wal.close().unwrap();
    let per_volume = open_groups(
        &volumes(&fs),
        crate::util::clock::system(),
        &options(WalGroupCount::PerVolume),
        &mut |_| Ok(()),
    )
    .unwrap();
    assert_eq!(per_volume.group_count(), 2);
}

#[test]
fn a_group_count_out_of_range_is_refused() {
    for bad in [0, WalGroupCount::MAX + 1] {
        let err = open(&MemFs::new(), bad).err().unwrap();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    }
}

#[test]
fn every_group_replays_and_remembers_its_regions() {
    let fs = MemFs::new();
    let (wal, _) = open(&fs, 2).unwrap();
    log(&wal, &[1, 2, 3, 4], 1);
    // A process crash: what was handed to the OS survives.
    drop(wal);
    let fs = fs.crash_process();
    let (wal, replayed) = open(&fs, 2).unwrap();
    let mut seqs: Vec<(u64, u64)> = replayed.iter().map(|e| (e.region_id, e.seq)).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, [(1, 1), (2, 2), (3, 3), (4, 4)]);
    assert_eq!(wal.log_count(), 2);
    assert!(wal.holds(0, 2) && wal.holds(1, 3));
    assert!(!wal.holds(0, 3) && !wal.holds(1, 2));
    assert!(fs.exists(Path::new("/b/wal-group-1")).unwrap());
}

#[test]
fn fewer_groups_leave_a_leftover_log_until_its_regions_flushed() {
    let fs = MemFs::new();
    let (wal, _) = open(&fs, 2).unwrap();
    log(&wal, &[1, 2], 1);
    wal.close().unwrap();
    let (wal, replayed) = open(&fs, 1).unwrap();
    assert_eq!(replayed.len(), 2);
    let logs = dirs(&wal);
    assert_eq!(
        logs[1],
        (None, "b".to_string(), "/b/wal-group-1".to_string())
    );
    // The leftover holds only what replay found there; group 0 holds every region now.
    assert!(wal.holds(1, 1) && !wal.holds(1, 2) && wal.holds(0, 1));
    assert_eq!(wal.segments(1), 1);
    assert_eq!(
        wal.mark_flushed(1, 1).unwrap(),
        0,
        "region 1's edit is unflushed"
    );
    assert_eq!(wal.mark_flushed(1, 2).unwrap(), 1);
    wal.close().unwrap();
    // An empty leftover directory is removed at the next open.
    let (wal, _) = open(&fs, 1).unwrap();
    assert_eq!(wal.log_count(), 1);
    assert!(!fs.exists(Path::new("/b/wal-group-1")).unwrap());
}

#[test]
fn a_single_wal_directory_from_before_groups_opens_as_group_zero() {
    let fs = MemFs::new();
    let legacy = Wal::open(
        Arc::new(fs.clone()) as Arc<dyn FileSystem>,
        crate::util::clock::system(),
        "/a/wal".into(),
        WalOptions::default(),
        &mut |_| Ok(()),
    )
    .unwrap();
    legacy
        .append(&simple_edit(5, 1), Durability::SyncWal)
        .unwrap();
    legacy.close().unwrap();
    let (wal, replayed) = open(&fs, 2).unwrap();
    assert_eq!(replayed.len(), 1);
    assert_eq!(wal.log_count(), 2, "no leftover: /a/wal is group 0's home");
    // Region 5 now logs to group 1, but group 0 keeps its replayed edit.
    assert_eq!(wal.group_of(5), 1);
    assert!(wal.holds(0, 5) && wal.holds(1, 5));
}
