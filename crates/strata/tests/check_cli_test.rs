//! `strata check`, `strata sst dump` and `strata wal dump` on a data directory written by
//! the engine: a clean directory passes; a flipped bit in an SSTable block, a manifest or a
//! WAL record fails the check with the file and the offset named.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use strata_engine::fs::{FileSystem, LocalFs};
use strata_engine::{
    BloomType, Cell, Durability, Engine, EngineOptions, FamilyOptions, RegionSpec, WalGroupCount,
};

const FLUSHED_ROWS: usize = 400;
const WAL_ROWS: usize = 20;

/// A data dir with one region: a flushed SSTable of several small blocks (row bloom), and
/// edits left only in the WAL by a simulated crash (the engine is dropped without close).
fn build_data_dir(dir: &Path) {
    let engine = Engine::open(EngineOptions::new(dir)).unwrap();
    let mut family = FamilyOptions::new("cf");
    family.block_size = 1024;
    family.bloom_type = BloomType::Row;
    let spec = RegionSpec {
        id: 1,
        families: vec![family],
    };
    let region = engine.open_region(spec).unwrap();
    let put = |row: Vec<u8>, ts: i64| {
        let cell = Cell::put(row, "cf", "q", ts, vec![b'v'; 40]);
        region.mutate(vec![cell], Durability::SyncWal).unwrap();
    };
    for i in 0..FLUSHED_ROWS {
        put(format!("row{i:04}").into_bytes(), 1000 + i as i64);
    }
    put(b"bin\x00\xff".to_vec(), 7);
    region.flush().unwrap();
    for i in 0..WAL_ROWS {
        put(format!("wal{i:04}").into_bytes(), 5000 + i as i64);
    }
    drop(region);
    drop(engine);
}

fn strata(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn check(dir: &Path) -> Output {
    strata(&["check", "--data-dir", dir.to_str().unwrap()])
}

/// The only file in `dir` whose name satisfies `pick`.
fn file_in(dir: &Path, pick: impl Fn(&str) -> bool) -> PathBuf {
    let names: Vec<String> = LocalFs
        .list(dir)
        .unwrap()
        .into_iter()
        .filter(|n| pick(n))
        .collect();
    assert_eq!(names.len(), 1, "{names:?} in {}", dir.display());
    dir.join(&names[0])
}

/// The newest WAL segment (a flush may have rolled the first one).
fn newest_segment(data: &Path) -> PathBuf {
    newest_segment_in(&data.join("wal"))
}

/// The newest segment of the WAL directory `dir`.
fn newest_segment_in(dir: &Path) -> PathBuf {
    let dir = dir.to_path_buf();
    let mut names: Vec<String> = LocalFs.list(&dir).unwrap();
    names.retain(|n| n.ends_with(".log"));
    names.sort();
    dir.join(names.last().expect("a WAL segment"))
}

fn store_dir(data: &Path) -> PathBuf {
    data.join("regions").join("0000000000000001").join("cf")
}

fn sstable(data: &Path) -> PathBuf {
    file_in(&store_dir(data), |n| n.ends_with(".sst"))
}

fn flip_bit(path: &Path, offset: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[offset as usize] ^= 0x10;
    std::fs::write(path, bytes).unwrap();
}

fn fresh() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    build_data_dir(&data);
    (tmp, data)
}

/// The offset of data block `i`, read from `strata sst dump`'s index listing.
fn block_offset(sst: &Path, i: usize) -> u64 {
    let out = strata(&["sst", "dump", sst.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let prefix = format!("  [{i}] offset ");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let line = stdout.lines().find(|l| l.starts_with(&prefix)).unwrap();
    line[prefix.len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_clean_data_dir_passes() {
    let (_tmp, data) = fresh();
    let out = check(&data);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("OK: no corruption found"), "{all}");
    assert!(all.contains("SSTables: 1 files"), "{all}");
    assert!(
        all.contains(&format!("{} entries", FLUSHED_ROWS + 1)),
        "{all}"
    );
}

#[test]
fn every_wal_group_is_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut options = EngineOptions::new(&data);
    options.wal.groups = WalGroupCount::Fixed(2);
    let engine = Engine::open(options).unwrap();
    // Region 1 logs to group 1 (two records), region 2 to group 0 (one).
    for (id, records) in [(1, 2), (2, 1)] {
        let families = vec![FamilyOptions::new("cf")];
        let region = engine.open_region(RegionSpec { id, families }).unwrap();
        for ts in 0..records {
            let cell = Cell::put("row", "cf", "q", ts, "v");
            region.mutate(vec![cell], Durability::SyncWal).unwrap();
        }
    }
    drop(engine);
    let out = check(&data);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("WAL: 2 segments, 3 records"), "{all}");
    // A record follows the damaged first one, so this is corruption, not a torn tail.
    let segment = newest_segment_in(&data.join("wal-group-1"));
    flip_bit(&segment, 24 + 12);
    let out = check(&data);
    let all = text(&out);
    assert!(!out.status.success(), "{all}");
    let expected = format!("corruption in {} at offset 24", segment.display());
    assert!(all.contains(&expected), "want {expected:?} in {all}");
}

#[test]
fn a_flipped_bit_in_a_data_block_is_named_with_its_offset() {
    let (_tmp, data) = fresh();
    let sst = sstable(&data);
    let offset = block_offset(&sst, 2);
    assert!(offset > 0);
    flip_bit(&sst, offset + 7);
    let out = check(&data);
    let all = text(&out);
    assert!(!out.status.success(), "{all}");
    let expected = format!("corruption in {} at offset {offset}", sst.display());
    assert!(all.contains(&expected), "want {expected:?} in {all}");
}

#[test]
fn a_flipped_bit_in_the_manifest_fails_the_check() {
    let (_tmp, data) = fresh();
    let manifest = file_in(&store_dir(&data), |n| n.starts_with("MANIFEST-"));
    flip_bit(&manifest, 40);
    let out = check(&data);
    let all = text(&out);
    assert!(!out.status.success(), "{all}");
    let expected = format!("corruption in {} at offset", manifest.display());
    assert!(all.contains(&expected), "want {expected:?} in {all}");
}

#[test]
fn a_flipped_bit_in_a_wal_record_is_named_with_its_offset() {
    let (_tmp, data) = fresh();
    let segment = newest_segment(&data);
    let dump = strata(&["wal", "dump", segment.to_str().unwrap()]);
    let listing = String::from_utf8_lossy(&dump.stdout).to_string();
    assert!(dump.status.success(), "{}", text(&dump));
    // records after the first one exist, so damage in the first is corruption, not a torn tail
    let first: u64 = listing.lines().next().unwrap()["offset ".len()..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(listing.lines().filter(|l| l.starts_with("offset ")).count() >= 2);
    flip_bit(&segment, first + 12);
    let out = check(&data);
    let all = text(&out);
    assert!(!out.status.success(), "{all}");
    let expected = format!("corruption in {} at offset {first}", segment.display());
    assert!(all.contains(&expected), "want {expected:?} in {all}");
}

#[test]
fn sst_dump_prints_meta_index_and_escaped_cells() {
    let (_tmp, data) = fresh();
    let sst = sstable(&data);
    let out = strata(&["sst", "dump", "--cells", sst.to_str().unwrap()]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains(&format!("entries {}", FLUSHED_ROWS + 1)),
        "{all}"
    );
    assert!(all.contains("bloom Row"), "{all}");
    assert!(all.contains("  [1] offset "), "several data blocks: {all}");
    assert!(all.contains("bin\\x00\\xff/q@7 Put"), "{all}");
    assert!(all.contains("row0399/q@1399 Put"), "{all}");
}

#[test]
fn wal_dump_prints_records_with_seq_region_and_cells() {
    let (_tmp, data) = fresh();
    let segment = newest_segment(&data);
    let out = strata(&["wal", "dump", "--cells", segment.to_str().unwrap()]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("region 1 cells 1"), "{all}");
    assert!(all.contains("wal0019/cf:q@5019 Put"), "{all}");
    assert!(all.contains(" records"), "{all}");
}

#[test]
fn check_of_a_missing_dir_is_an_error_not_a_panic() {
    let out = check(Path::new("/nonexistent/strata-data"));
    assert!(!out.status.success());
    assert!(text(&out).contains("does not exist"));
}

#[test]
fn a_torn_wal_tail_is_a_note_not_a_failure() {
    let (_tmp, data) = fresh();
    let segment = newest_segment(&data);
    let mut bytes = std::fs::read(&segment).unwrap();
    bytes.truncate(bytes.len() - 5);
    std::fs::write(&segment, bytes).unwrap();
    let out = check(&data);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let expected = format!("note: {}: torn tail at offset", segment.display());
    assert!(all.contains(&expected), "want {expected:?} in {all}");
}

/// A snapshot whose file its store compacted away: the snapshot alone holds it, so the
/// check verifies it, and names it when a block is damaged; a damaged descriptor is named
/// too.
#[test]
fn snapshot_files_and_descriptors_are_verified() {
    let (_tmp, data) = fresh();
    {
        let engine = Engine::open(EngineOptions::new(&data)).unwrap();
        let region = engine
            .open_region(RegionSpec {
                id: 1,
                families: vec![FamilyOptions::new("cf")],
            })
            .unwrap();
        engine
            .take_snapshot("s1", Vec::new(), &[(1, strata_engine::RowRange::all())])
            .unwrap();
        let cell = Cell::put("row0000", "cf", "q", 9_000, "newer");
        region.mutate(vec![cell], Durability::SyncWal).unwrap();
        region.flush().unwrap();
        region.compact(true).unwrap();
        drop(region);
        engine.close().unwrap();
    }
    let out = check(&data);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("snapshots: 1, 2 file(s) held by a snapshot alone"),
        "{}",
        text(&out)
    );

    let snap_dir = data.join("snapshots/s1/0000000000000001/cf");
    let held = file_in(&snap_dir, |n| {
        n.ends_with(".sst") && n != "0000000000000001.sst"
    });
    flip_bit(&held, block_offset(&held, 0) + 7);
    let out = check(&data);
    assert!(!out.status.success());
    assert!(text(&out).contains("snapshots/s1"), "{}", text(&out));

    flip_bit(&data.join("snapshots/s1/descriptor"), 30);
    let out = check(&data);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("snapshots/s1/descriptor"),
        "{}",
        text(&out)
    );
}
