//! The placement seam: WAL, flush and compaction files land on the volumes the policy
//! chooses, and the store reads them back from there after a restart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use strata_engine::fs::{
    ByCategory, FileCategory, FileSystem, MemFs, StoragePolicy, StorageType, Tiered, Volume,
};
use strata_engine::{Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, RegionSpec};

fn files_under(fs: &MemFs, dir: &Path, suffix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for name in fs.list(dir).unwrap() {
        let path = dir.join(&name);
        if name.ends_with(suffix) {
            out.push(path.to_string_lossy().into_owned());
        } else if fs.list(&path).map(|l| !l.is_empty()).unwrap_or(false) {
            out.extend(files_under(fs, &path, suffix));
        }
    }
    out
}

#[test]
fn files_go_to_the_volume_chosen_for_their_category() {
    let fs = MemFs::new();
    let mut opts = EngineOptions::new("/unused");
    opts.fs = Arc::new(fs.clone());
    opts.background_work = false;
    opts.volumes = vec![
        Volume::new("meta", "/ssd0", StorageType::Ssd),
        Volume::new("fast", "/ram0", StorageType::Ram),
        Volume::new("cold", "/hdd0", StorageType::Hdd),
    ];
    opts.placement = Some(Arc::new(
        ByCategory::new()
            .route(FileCategory::Wal, "fast")
            .route(FileCategory::Flush, "fast")
            .route(FileCategory::Compaction, "cold"),
    ));
    let engine = Engine::open(opts.clone()).unwrap();
    let region = engine
        .open_region(RegionSpec {
            id: 3,
            families: vec![FamilyOptions::new("cf")],
        })
        .unwrap();
    for i in 0..4u8 {
        region
            .mutate(
                vec![Cell::put(vec![b'r', i], "cf", "q", 10, vec![i])],
                Durability::SyncWal,
            )
            .unwrap();
        region.flush().unwrap();
    }
    assert!(
        !files_under(&fs, Path::new("/ram0/wal"), ".log").is_empty(),
        "WAL on the fast volume"
    );
    assert_eq!(
        files_under(&fs, Path::new("/ram0"), ".sst").len(),
        4,
        "flushes on the fast volume"
    );
    region.compact(true).unwrap();
    assert!(
        files_under(&fs, Path::new("/ram0"), ".sst").is_empty(),
        "inputs deleted after compaction"
    );
    assert_eq!(
        files_under(&fs, Path::new("/hdd0"), ".sst").len(),
        1,
        "compaction output on the cold volume"
    );
    assert!(!files_under(&fs, Path::new("/ssd0"), "")
        .iter()
        .any(|f| f.ends_with(".sst")));
    assert!(
        fs.list(Path::new("/ssd0/regions")).unwrap().len() == 1,
        "manifests on the first volume"
    );
    drop(region);
    engine.close().unwrap();

    let engine = Engine::open(opts).unwrap();
    let region = engine
        .open_region(RegionSpec {
            id: 3,
            families: vec![FamilyOptions::new("cf")],
        })
        .unwrap();
    for i in 0..4u8 {
        let row = region
            .get(&Get::new(vec![b'r', i]))
            .unwrap()
            .expect("row survives");
        assert_eq!(row.cells[0].value.as_ref(), &[i]);
    }
}

/// A `WARM` server with an `ALL_SSD` WAL: the WAL and flushes land on the SSD volumes (taking
/// turns), compactions on the HDD volume.
#[test]
fn a_tiered_policy_places_by_storage_type() {
    let fs = MemFs::new();
    let mut opts = EngineOptions::new("/unused");
    opts.fs = Arc::new(fs.clone());
    opts.background_work = false;
    opts.volumes = vec![
        Volume::new("default", "/ssd0", StorageType::Ssd),
        Volume::new("ssd1", "/ssd1", StorageType::Ssd),
        Volume::new("hdd0", "/hdd0", StorageType::Hdd),
    ];
    let policy = Tiered::new(StoragePolicy::Warm, StoragePolicy::AllSsd);
    opts.placement = Some(Arc::new(policy));
    let engine = Engine::open(opts).unwrap();
    let region = engine
        .open_region(RegionSpec {
            id: 5,
            families: vec![FamilyOptions::new("cf")],
        })
        .unwrap();
    for i in 0..4u8 {
        let cell = Cell::put(vec![b'r', i], "cf", "q", 10, vec![i]);
        region.mutate(vec![cell], Durability::SyncWal).unwrap();
        region.flush().unwrap();
    }
    let ssd_files = |root: &str| files_under(&fs, Path::new(root), ".sst").len();
    assert!(
        ssd_files("/ssd0") > 0 && ssd_files("/ssd1") > 0,
        "flushes take turns"
    );
    assert_eq!(ssd_files("/ssd0") + ssd_files("/ssd1"), 4);
    assert_eq!(ssd_files("/hdd0"), 0);
    region.compact(true).unwrap();
    assert_eq!(ssd_files("/ssd0") + ssd_files("/ssd1"), 0);
    assert_eq!(ssd_files("/hdd0"), 1, "compaction output on hdd");
    let wal_on_ssd = ["/ssd0/wal", "/ssd1/wal"]
        .iter()
        .any(|dir| !files_under(&fs, Path::new(dir), ".log").is_empty());
    assert!(wal_on_ssd, "WAL on an SSD volume");
    assert!(fs
        .list(Path::new("/hdd0/wal"))
        .map_or(true, |l| l.is_empty()));
}

/// On a `HOT` (all-HDD) server, an `ALL_SSD` family keeps its files on SSD and a `COLD`
/// family's compactions go to HDD; altering the family moves its next files.
#[test]
fn a_family_storage_policy_overrides_the_servers() {
    let fs = MemFs::new();
    let mut opts = EngineOptions::new("/unused");
    opts.fs = Arc::new(fs.clone());
    opts.background_work = false;
    opts.volumes = vec![
        Volume::new("default", "/ssd0", StorageType::Ssd),
        Volume::new("hdd0", "/hdd0", StorageType::Hdd),
    ];
    let policy = Tiered::new(StoragePolicy::Hot, StoragePolicy::AllSsd);
    opts.placement = Some(Arc::new(policy));
    let engine = Engine::open(opts).unwrap();
    let family = |name: &str, policy| FamilyOptions {
        storage_policy: Some(policy),
        ..FamilyOptions::new(name)
    };
    let region = engine
        .open_region(RegionSpec {
            id: 6,
            families: vec![
                family("fast", StoragePolicy::AllSsd),
                family("slow", StoragePolicy::Cold),
            ],
        })
        .unwrap();
    let write_and_flush = |n: u8| {
        for i in 0..n {
            let cells = ["fast", "slow"].map(|f| Cell::put(vec![b'r', i], f, "q", 10, vec![i]));
            region.mutate(cells.to_vec(), Durability::SyncWal).unwrap();
            region.flush().unwrap();
        }
    };
    write_and_flush(2);
    region.compact(true).unwrap();
    let sst = |root: &str| files_under(&fs, Path::new(root), ".sst");
    assert_eq!(sst("/ssd0").len(), 1, "the ALL_SSD family's file");
    assert_eq!(sst("/hdd0").len(), 1, "the COLD family's compacted file");
    assert!(region.set_family(family("fast", StoragePolicy::Cold)));
    write_and_flush(1);
    assert_eq!(
        sst("/hdd0").len(),
        3,
        "after ALTER, new flushes follow COLD"
    );
}

/// Per-tier settings: files written on an HDD volume get its compression and block size;
/// files on the SSD volume, which has none, keep the family's (no compression, 4 KiB).
#[test]
fn files_take_the_compression_and_block_size_of_their_storage_type() {
    use strata_engine::fs::TierSettings;
    use strata_engine::tools::InspectedTable;
    use strata_engine::Compression;

    let fs = MemFs::new();
    let mut opts = EngineOptions::new("/unused");
    opts.fs = Arc::new(fs.clone());
    opts.background_work = false;
    opts.volumes = vec![
        Volume::new("default", "/ssd0", StorageType::Ssd),
        Volume::new("hdd0", "/hdd0", StorageType::Hdd),
    ];
    opts.placement = Some(Arc::new(
        ByCategory::new().route(FileCategory::Compaction, "hdd0"),
    ));
    opts.tier_settings.insert(
        StorageType::Hdd,
        TierSettings {
            compression: Some(Compression::Zstd),
            block_size: Some(64 << 10),
        },
    );
    let engine = Engine::open(opts).unwrap();
    let mut family = FamilyOptions::new("cf");
    family.block_size = 4 << 10;
    let region = engine
        .open_region(RegionSpec {
            id: 9,
            families: vec![family],
        })
        .unwrap();
    for i in 0..200u32 {
        let cell = Cell::put(format!("r{i:04}"), "cf", "q", 10, vec![b'a'; 1024]);
        region.mutate(vec![cell], Durability::SyncWal).unwrap();
    }
    region.flush().unwrap();
    let inspect = |root: &str| {
        let files = files_under(&fs, Path::new(root), ".sst");
        assert_eq!(files.len(), 1, "{root}: {files:?}");
        InspectedTable::open(&fs, Path::new(&files[0])).unwrap()
    };
    let flushed = inspect("/ssd0");
    assert!(flushed.file_size() > 200 * 1024, "uncompressed on the SSD");
    assert!(flushed.index_entries().unwrap().len() >= 40, "4 KiB blocks");
    region.compact(true).unwrap();
    let compacted = inspect("/hdd0");
    assert!(
        compacted.file_size() < flushed.file_size() / 10,
        "ZSTD on the HDD: {} vs {}",
        compacted.file_size(),
        flushed.file_size()
    );
    assert!(
        compacted.index_entries().unwrap().len() <= 4,
        "64 KiB blocks"
    );
    for i in [0u32, 199] {
        let row = region.get(&Get::new(format!("r{i:04}"))).unwrap().unwrap();
        assert_eq!(row.cells[0].value.len(), 1024);
    }
}
