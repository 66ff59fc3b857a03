use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::*;
use crate::fs::MemFs;

fn p(s: &str) -> PathBuf {
    PathBuf::from(s)
}

fn kind(err: Error) -> ErrorKind {
    match err {
        Error::Io { source, .. } => source.kind(),
        other => panic!("expected an I/O error, got {other}"),
    }
}

/// A FaultFs over a MemFs holding `/d/data` = "0123456789".
fn setup() -> (FaultFs, MemFs) {
    let mem = MemFs::new();
    mem.create_dir_all(&p("/d")).unwrap();
    let mut w = mem.create(&p("/d/data")).unwrap();
    w.append(b"0123456789").unwrap();
    w.sync().unwrap();
    (FaultFs::new(Arc::new(mem.clone())), mem)
}

/// Runs each operation once, in an order where each can succeed, and reports which failed.
fn run_every_op(fs: &FaultFs) -> Vec<FaultOp> {
    let mut failed = Vec::new();
    let mut note = |op, ok: bool| {
        if !ok {
            failed.push(op);
        }
    };
    note(FaultOp::CreateDir, fs.create_dir_all(&p("/d/sub")).is_ok());
    match fs.create(&p("/d/w")) {
        Err(_) => note(FaultOp::Create, false),
        Ok(mut w) => {
            note(FaultOp::Append, w.append(b"xy").is_ok());
            note(FaultOp::Flush, w.flush().is_ok());
            note(FaultOp::Sync, w.sync().is_ok());
        }
    }
    match fs.open_read(&p("/d/data")) {
        Err(_) => note(FaultOp::Open, false),
        Ok(r) => note(FaultOp::Read, r.read_at(0, 4).is_ok()),
    }
    note(FaultOp::List, fs.list(&p("/d")).is_ok());
    note(FaultOp::Stat, fs.exists(&p("/d/data")).is_ok());
    note(FaultOp::Stat, fs.file_size(&p("/d/data")).is_ok());
    note(FaultOp::Truncate, fs.truncate(&p("/d/data"), 10).is_ok());
    note(FaultOp::SyncDir, fs.sync_dir(&p("/d")).is_ok());
    fs.inner().create(&p("/d/r")).unwrap();
    note(FaultOp::Rename, fs.rename(&p("/d/r"), &p("/d/r2")).is_ok());
    fs.inner().create(&p("/d/x")).unwrap();
    note(FaultOp::Remove, fs.remove(&p("/d/x")).is_ok());
    note(FaultOp::RemoveDir, fs.remove_dir_all(&p("/d/sub")).is_ok());
    failed
}

const ALL_OPS: [FaultOp; 14] = [
    FaultOp::Create,
    FaultOp::Open,
    FaultOp::Append,
    FaultOp::Flush,
    FaultOp::Sync,
    FaultOp::Read,
    FaultOp::Remove,
    FaultOp::Rename,
    FaultOp::Truncate,
    FaultOp::SyncDir,
    FaultOp::CreateDir,
    FaultOp::RemoveDir,
    FaultOp::List,
    FaultOp::Stat,
];

#[test]
fn each_op_rule_hits_only_its_op() {
    let (fs, _) = setup();
    assert!(run_every_op(&fs).is_empty(), "no rules, no faults");
    for op in ALL_OPS {
        let (fs, _) = setup();
        fs.inject(FaultRule::error(op, ErrorKind::Other)).unwrap();
        let failed = run_every_op(&fs);
        let expected = if op == FaultOp::Stat { 2 } else { 1 };
        assert_eq!(failed, vec![op; expected], "rule on {op:?}");
        assert_eq!(fs.injected(), expected as u64);
    }
}

#[test]
fn skip_and_times_count_matching_ops() {
    let (fs, _) = setup();
    let rule = FaultRule::error(FaultOp::Append, ErrorKind::Other)
        .skip(2)
        .times(2);
    fs.inject(rule).unwrap();
    let mut w = fs.create(&p("/d/f")).unwrap();
    let results: Vec<bool> = (0..6).map(|_| w.append(b"a").is_ok()).collect();
    assert_eq!(results, [true, true, false, false, true, true]);
    assert_eq!(fs.injected(), 2);
    assert_eq!(w.len(), 4, "failed appends add nothing");
}

#[test]
fn path_filter_selects_files() {
    let (fs, _) = setup();
    fs.inject(FaultRule::error(FaultOp::Create, ErrorKind::Other).path_contains(".wal"))
        .unwrap();
    assert!(fs.create(&p("/d/000001.sst")).is_ok());
    assert!(fs.create(&p("/d/000002.wal")).is_err());
    fs.inject(FaultRule::error(FaultOp::Rename, ErrorKind::Other).path_contains("CURRENT"))
        .unwrap();
    fs.inner().create(&p("/d/tmp")).unwrap();
    assert!(
        fs.rename(&p("/d/tmp"), &p("/d/CURRENT")).is_err(),
        "target name matches"
    );
    assert!(fs.rename(&p("/d/tmp"), &p("/d/other")).is_ok());
    assert_eq!(fs.injected(), 2);
}

#[test]
fn rules_reach_handles_opened_earlier_and_can_be_removed() {
    let (fs, _) = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    let r = fs.open_read(&p("/d/data")).unwrap();
    let id = fs
        .inject(FaultRule::error(FaultOp::Sync, ErrorKind::Other))
        .unwrap();
    let read = fs
        .inject(FaultRule::error(FaultOp::Read, ErrorKind::Other))
        .unwrap();
    assert!(w.sync().is_err());
    assert!(r.read_at(0, 1).is_err());
    assert!(fs.remove_rule(id));
    assert!(!fs.remove_rule(id));
    assert!(w.sync().is_ok());
    fs.clear_rules();
    assert!(r.read_at(0, 1).is_ok());
    assert!(!fs.remove_rule(read));
}

#[test]
fn corrupt_read_flips_exactly_one_bit() {
    let (fs, _) = setup();
    fs.inject(FaultRule::new(FaultOp::Read, FaultKind::CorruptRead).times(1))
        .unwrap();
    let bad = fs.read_all(&p("/d/data")).unwrap();
    let good = fs.read_all(&p("/d/data")).unwrap();
    assert_eq!(good, b"0123456789");
    let flipped: u32 = bad
        .iter()
        .zip(&good)
        .map(|(a, b)| (a ^ b).count_ones())
        .sum();
    assert_eq!(flipped, 1);
    assert_eq!(fs.injected(), 1);
}

#[test]
fn mismatched_kinds_are_rejected() {
    let (fs, _) = setup();
    let bad = fs.inject(FaultRule::new(FaultOp::Create, FaultKind::CorruptRead));
    assert!(matches!(bad, Err(Error::InvalidArgument(_))));
    let bad = fs.inject(FaultRule::new(FaultOp::Flush, FaultKind::TornAppend));
    assert!(matches!(bad, Err(Error::InvalidArgument(_))));
}

#[test]
fn torn_append_writes_half_then_fails() {
    let (fs, mem) = setup();
    let mut w = fs.create(&p("/d/wal")).unwrap();
    w.append(b"head").unwrap();
    fs.inject(FaultRule::new(FaultOp::Append, FaultKind::TornAppend).times(1))
        .unwrap();
    assert!(w.append(b"ABCDEFGH").is_err());
    w.flush().unwrap();
    assert_eq!(mem.read_all(&p("/d/wal")).unwrap(), b"headABCD");
}

#[test]
fn read_only_refuses_every_mutation() {
    let (fs, _) = setup();
    let mut w = fs.create(&p("/d/f")).unwrap();
    fs.set_read_only(true);
    let failed = run_every_op(&fs);
    let mutating: Vec<FaultOp> = failed
        .iter()
        .copied()
        .filter(|op| op.is_mutating())
        .collect();
    assert_eq!(failed, mutating, "reads still work");
    assert!(failed.contains(&FaultOp::Create) && failed.contains(&FaultOp::SyncDir));
    assert_eq!(
        kind(w.append(b"x").unwrap_err()),
        ErrorKind::PermissionDenied
    );
    assert_eq!(
        kind(fs.remove(&p("/d/data")).unwrap_err()),
        ErrorKind::PermissionDenied
    );
    fs.set_read_only(false);
    assert!(run_every_op(&fs).is_empty());
}

#[test]
fn disk_fills_up_after_the_budget() {
    let (fs, mem) = setup();
    fs.set_disk_full_after(Some(10));
    assert_eq!(fs.free_space(Path::new("/d")), Some(10));
    let mut w = fs.create(&p("/d/f")).unwrap();
    w.append(b"123456").unwrap();
    w.flush().unwrap();
    assert_eq!(fs.free_space(Path::new("/d")), Some(4));
    w.append(b"78901").unwrap();
    assert_eq!(kind(w.flush().unwrap_err()), ErrorKind::StorageFull);
    assert_eq!(kind(w.sync().unwrap_err()), ErrorKind::StorageFull);
    assert_eq!(kind(w.append(b"z").unwrap_err()), ErrorKind::StorageFull);
    assert_eq!(
        mem.read_all(&p("/d/f")).unwrap(),
        b"123456",
        "nothing partial"
    );
    assert_eq!(fs.injected(), 3);
    fs.set_disk_full_after(None);
    w.sync().unwrap();
    assert_eq!(mem.read_all(&p("/d/f")).unwrap(), b"12345678901");
}

#[test]
fn free_space_is_the_smaller_of_disk_and_budget() {
    let (fs, mem) = setup();
    mem.set_capacity(Some(100));
    assert_eq!(fs.free_space(Path::new("/d")), Some(90));
    fs.set_disk_full_after(Some(5));
    assert_eq!(fs.free_space(Path::new("/d")), Some(5));
}
