use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::*;
use crate::error::Error;

fn p(s: &str) -> PathBuf {
    PathBuf::from(s)
}

fn kind(err: Error) -> ErrorKind {
    match err {
        Error::Io { source, .. } => source.kind(),
        other => panic!("expected an I/O error, got {other}"),
    }
}

/// A disk with directory `/d` and `/d/f` created and dir-synced but empty.
fn setup() -> MemFs {
    let fs = MemFs::new();
    fs.create_dir_all(&p("/d")).unwrap();
    fs.create(&p("/d/f")).unwrap().sync().unwrap();
    fs.sync_dir(&p("/d")).unwrap();
    fs
}

#[test]
fn three_durability_levels_across_both_crashes() {
    let fs = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"synced.").unwrap();
    w.sync().unwrap();
    w.append(b"flushed.").unwrap();
    w.flush().unwrap();
    w.append(b"appended.").unwrap();

    let after_kill = fs.crash_process();
    assert_eq!(after_kill.read_all(&p("/d/f")).unwrap(), b"synced.flushed.");
    let after_power = fs.crash_power_loss_with(7, CrashOptions::strict());
    assert_eq!(after_power.read_all(&p("/d/f")).unwrap(), b"synced.");
    // A power cut after a process crash still loses what was never synced.
    let both = after_kill.crash_power_loss_with(7, CrashOptions::strict());
    assert_eq!(both.read_all(&p("/d/f")).unwrap(), b"synced.");
    // The original disk is untouched by taking clones.
    assert_eq!(fs.read_all(&p("/d/f")).unwrap(), b"synced.flushed.");
}

#[test]
fn writers_on_the_old_disk_do_not_reach_the_clone() {
    let fs = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"before").unwrap();
    w.flush().unwrap();
    let clone = fs.crash_process();
    w.append(b"after").unwrap();
    w.sync().unwrap();
    assert_eq!(clone.read_all(&p("/d/f")).unwrap(), b"before");
    assert_eq!(fs.read_all(&p("/d/f")).unwrap(), b"beforeafter");
    let mut w2 = clone.create(&p("/d/g")).unwrap();
    w2.append(b"new").unwrap();
    w2.flush().unwrap();
    assert!(!fs.exists(&p("/d/g")).unwrap());
}

#[test]
fn new_names_need_a_dir_sync() {
    let fs = setup();
    let mut w = fs.create(&p("/d/new")).unwrap();
    w.append(b"data").unwrap();
    w.sync().unwrap();
    assert!(fs.crash_process().exists(&p("/d/new")).unwrap());
    let lost = fs.crash_power_loss_with(1, CrashOptions::strict());
    assert!(!lost.exists(&p("/d/new")).unwrap());
    assert_eq!(lost.list(&p("/d")).unwrap(), ["f"]);

    fs.sync_dir(&p("/d")).unwrap();
    let kept = fs.crash_power_loss_with(1, CrashOptions::strict());
    assert_eq!(kept.read_all(&p("/d/new")).unwrap(), b"data");
}

#[test]
fn removal_without_dir_sync_is_undone_by_power_loss() {
    let fs = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"durable").unwrap();
    w.sync().unwrap();
    drop(w);
    fs.remove(&p("/d/f")).unwrap();
    assert!(!fs.crash_process().exists(&p("/d/f")).unwrap());
    let back = fs.crash_power_loss_with(3, CrashOptions::strict());
    assert_eq!(back.read_all(&p("/d/f")).unwrap(), b"durable");

    fs.sync_dir(&p("/d")).unwrap();
    let gone = fs.crash_power_loss_with(3, CrashOptions::strict());
    assert!(!gone.exists(&p("/d/f")).unwrap());
    assert_eq!(fs.open_handles(), 0);
}

#[test]
fn rename_is_durable_after_syncing_both_dirs() {
    let fs = setup();
    fs.create_dir_all(&p("/e")).unwrap();
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"v1").unwrap();
    w.sync().unwrap();
    fs.rename(&p("/d/f"), &p("/e/g")).unwrap();
    let strict = CrashOptions::strict();

    let none = fs.crash_power_loss_with(0, strict);
    assert_eq!(none.read_all(&p("/d/f")).unwrap(), b"v1");
    assert!(!none.exists(&p("/e/g")).unwrap());

    fs.sync_dir(&p("/e")).unwrap();
    let target_only = fs.crash_power_loss_with(0, strict);
    assert_eq!(target_only.read_all(&p("/e/g")).unwrap(), b"v1");
    assert!(
        target_only.exists(&p("/d/f")).unwrap(),
        "source dir not synced"
    );

    fs.sync_dir(&p("/d")).unwrap();
    let both = fs.crash_power_loss_with(0, strict);
    assert_eq!(both.read_all(&p("/e/g")).unwrap(), b"v1");
    assert!(!both.exists(&p("/d/f")).unwrap());
}

#[test]
fn rename_over_a_file_keeps_the_old_target_until_dir_sync() {
    let fs = setup();
    for (name, data) in [("/d/CURRENT", b"old"), ("/d/tmp", b"new")] {
        let mut w = fs.create(&p(name)).unwrap();
        w.append(data).unwrap();
        w.sync().unwrap();
    }
    fs.sync_dir(&p("/d")).unwrap();
    fs.rename(&p("/d/tmp"), &p("/d/CURRENT")).unwrap();
    assert_eq!(fs.read_all(&p("/d/CURRENT")).unwrap(), b"new");
    let before = fs.crash_power_loss_with(0, CrashOptions::strict());
    assert_eq!(before.read_all(&p("/d/CURRENT")).unwrap(), b"old");
    assert_eq!(before.list(&p("/d")).unwrap(), ["CURRENT", "f", "tmp"]);
    fs.sync_dir(&p("/d")).unwrap();
    let after = fs.crash_power_loss_with(0, CrashOptions::strict());
    assert_eq!(after.read_all(&p("/d/CURRENT")).unwrap(), b"new");
    assert_eq!(after.list(&p("/d")).unwrap(), ["CURRENT", "f"]);
}

#[test]
fn removed_dir_comes_back_until_parent_is_synced() {
    let fs = setup();
    fs.remove_dir_all(&p("/d")).unwrap();
    assert!(!fs.exists(&p("/d/f")).unwrap());
    let back = fs.crash_power_loss_with(0, CrashOptions::strict());
    assert!(back.exists(&p("/d/f")).unwrap());
    fs.sync_dir(&p("/")).unwrap();
    let gone = fs.crash_power_loss_with(0, CrashOptions::strict());
    assert!(!gone.exists(&p("/d")).unwrap());
    assert!(gone.list(&p("/")).unwrap().is_empty());
}

#[test]
fn truncate_is_durable() {
    let fs = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"0123456789").unwrap();
    w.sync().unwrap();
    fs.truncate(&p("/d/f"), 4).unwrap();
    let after = fs.crash_power_loss_with(0, CrashOptions::strict());
    assert_eq!(after.read_all(&p("/d/f")).unwrap(), b"0123");
    // The writer's offset is unchanged: its next flush leaves a zero-filled hole.
    w.append(b"ab").unwrap();
    w.flush().unwrap();
    assert_eq!(fs.read_all(&p("/d/f")).unwrap(), b"0123\0\0\0\0\0\0ab");
}

#[test]
fn torn_tails_are_prefixes_of_the_unsynced_bytes() {
    let fs = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"SYNCED").unwrap();
    w.sync().unwrap();
    let tail: Vec<u8> = (0..200u8).collect();
    w.append(&tail).unwrap();
    w.flush().unwrap();
    let full = fs.read_all(&p("/d/f")).unwrap();

    let prefix_only = CrashOptions {
        keep_unsynced_prefix: true,
        garbage_tail: false,
    };
    let mut lens = std::collections::BTreeSet::new();
    for seed in 0..60 {
        let got = fs.crash_power_loss_with(seed, prefix_only);
        let data = got.read_all(&p("/d/f")).unwrap();
        assert!(full.starts_with(&data), "seed {seed}: not a prefix");
        assert!(
            data.starts_with(b"SYNCED"),
            "seed {seed}: lost synced bytes"
        );
        lens.insert(data.len());
    }
    assert!(lens.contains(&6), "no seed dropped the whole tail");
    assert!(lens.contains(&full.len()), "no seed kept the whole tail");
    assert!(lens.len() > 3, "no seed cut the tail in the middle");

    let mut garbage_seen = false;
    for seed in 0..60 {
        let data = fs.crash_power_loss(seed).read_all(&p("/d/f")).unwrap();
        assert!(data.starts_with(b"SYNCED") && data.len() <= full.len());
        garbage_seen |= !full.starts_with(&data);
    }
    assert!(garbage_seen, "garbage tails never appeared");
    // Same seed, same disk.
    let again = |seed| fs.crash_power_loss(seed).read_all(&p("/d/f")).unwrap();
    assert_eq!(again(5), again(5));
}

#[test]
fn synced_files_are_never_torn() {
    let fs = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"all synced").unwrap();
    w.sync().unwrap();
    for seed in 0..20 {
        let data = fs.crash_power_loss(seed).read_all(&p("/d/f")).unwrap();
        assert_eq!(data, b"all synced");
    }
}

#[test]
fn path_and_read_errors() {
    let fs = setup();
    assert_eq!(
        kind(fs.create(&p("/x/f")).err().unwrap()),
        ErrorKind::NotFound
    );
    assert_eq!(
        kind(fs.read_all(&p("/d/none")).unwrap_err()),
        ErrorKind::NotFound
    );
    assert_eq!(
        kind(fs.create(&p("/d/f/g")).err().unwrap()),
        ErrorKind::NotADirectory
    );
    assert_eq!(
        kind(fs.create(&p("/d")).err().unwrap()),
        ErrorKind::IsADirectory
    );
    let r = fs.open_read(&p("/d/f")).unwrap();
    assert_eq!(kind(r.read_at(0, 1).unwrap_err()), ErrorKind::UnexpectedEof);
    assert_eq!(r.read_at(0, 0).unwrap(), b"");
    // Equivalent spellings are the same key.
    assert!(fs.exists(Path::new("/d/./f")).unwrap());
    assert!(fs.exists(Path::new("//d//f")).unwrap());
}

#[test]
fn list_shows_direct_children_sorted() {
    let fs = MemFs::new();
    fs.create_dir_all(&p("/a/b/c")).unwrap();
    fs.create_dir_all(&p("/a-z")).unwrap();
    for name in ["/a/z", "/a/m", "/a/b/inner"] {
        fs.create(&p(name)).unwrap();
    }
    assert_eq!(fs.list(&p("/a")).unwrap(), ["b", "m", "z"]);
    assert_eq!(fs.list(&p("/")).unwrap(), ["a", "a-z"]);
    assert_eq!(fs.list(&p("/a/b")).unwrap(), ["c", "inner"]);
}

#[test]
fn open_handles_keep_removed_files_readable() {
    let fs = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"keep me").unwrap();
    w.flush().unwrap();
    let r = fs.open_read(&p("/d/f")).unwrap();
    fs.remove(&p("/d/f")).unwrap();
    assert_eq!(r.read_at(0, 7).unwrap(), b"keep me");
    assert_eq!(fs.open_handles(), 2);
    drop((w, r));
    assert_eq!(fs.open_handles(), 0);
}

#[test]
fn capacity_fills_up() {
    let fs = setup();
    fs.set_capacity(Some(10));
    assert_eq!(fs.free_space(&p("/d")), Some(10));
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"12345678").unwrap();
    w.flush().unwrap();
    assert_eq!(fs.free_space(&p("/d")), Some(2));
    w.append(b"abc").unwrap();
    assert_eq!(kind(w.flush().unwrap_err()), ErrorKind::StorageFull);
    fs.set_capacity(None);
    w.flush().unwrap();
    assert_eq!(fs.read_all(&p("/d/f")).unwrap(), b"12345678abc");
    assert_eq!(fs.free_space(&p("/d")), None);
}
