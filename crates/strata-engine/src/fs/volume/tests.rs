use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::*;
use crate::fs::{LocalFs, MemFs};

fn three_volumes(fs: &MemFs, policy: Arc<dyn PlacementPolicy>) -> Volumes {
    let volumes = vec![
        Volume::new("main", "/ssd/store", StorageType::Ssd),
        Volume::new("fast", "/ram/store", StorageType::Ram),
        Volume::new("cold", "/hdd/store", StorageType::Hdd),
    ];
    Volumes::new(Arc::new(fs.clone()), volumes, policy).unwrap()
}

#[test]
fn storage_type_and_category_parse_and_print() {
    for (text, ty) in [
        ("RAM", StorageType::Ram),
        ("ssd", StorageType::Ssd),
        ("Hdd", StorageType::Hdd),
    ] {
        let parsed: StorageType = text.parse().unwrap();
        assert_eq!(parsed, ty);
        assert_eq!(parsed.to_string(), text.to_ascii_lowercase());
    }
    assert!("nvme".parse::<StorageType>().is_err());
    for category in FileCategory::ALL {
        let text = category.to_string().to_ascii_uppercase();
        assert_eq!(text.parse::<FileCategory>().unwrap(), category);
    }
    assert!(matches!(
        "log".parse::<FileCategory>(),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn single_places_everything_on_one_volume() {
    let tmp = tempfile::tempdir().unwrap();
    let volumes = Volumes::single(Arc::new(LocalFs), tmp.path().to_path_buf());
    assert_eq!(volumes.list().len(), 1);
    assert_eq!(volumes.list()[0].storage_type, StorageType::Ssd);
    for category in FileCategory::ALL {
        let placed = volumes
            .place(category, Path::new("r1/cf/0001.sst"))
            .unwrap();
        assert_eq!(placed.volume, "default");
        assert_eq!(placed.path, tmp.path().join("r1/cf/0001.sst"));
        assert!(
            volumes.fs().exists(&tmp.path().join("r1/cf")).unwrap(),
            "parent made"
        );
    }
}

#[test]
fn by_category_routes_and_falls_back() {
    let fs = MemFs::new();
    let policy = ByCategory::new()
        .route(FileCategory::Wal, "fast")
        .route(FileCategory::Archive, "cold")
        .route(FileCategory::Compaction, "no-such-volume");
    let volumes = three_volumes(&fs, Arc::new(policy));
    let wal = volumes
        .place(FileCategory::Wal, Path::new("wal/1.log"))
        .unwrap();
    assert_eq!(
        (wal.volume.as_str(), wal.path),
        ("fast", PathBuf::from("/ram/store/wal/1.log"))
    );
    assert!(fs.exists(Path::new("/ram/store/wal")).unwrap());
    let archive = volumes
        .place(FileCategory::Archive, Path::new("a/2.sst"))
        .unwrap();
    assert_eq!(archive.volume, "cold");
    for unrouted in [FileCategory::Flush, FileCategory::Compaction] {
        assert_eq!(
            volumes.place(unrouted, Path::new("x.sst")).unwrap().volume,
            "main"
        );
    }
    assert!(!fs.exists(Path::new("/hdd/store/x.sst")).unwrap());
}

#[test]
fn resolve_finds_named_volumes_only() {
    let fs = MemFs::new();
    let volumes = three_volumes(&fs, Arc::new(FirstVolume));
    assert_eq!(
        volumes.resolve("cold", Path::new("r/f.sst")).unwrap(),
        PathBuf::from("/hdd/store/r/f.sst")
    );
    assert!(matches!(
        volumes.resolve("gone", Path::new("r/f.sst")),
        Err(Error::NotFound(_))
    ));
    for escaping in ["/etc/passwd", "../x", "a/../../x", ""] {
        assert!(
            matches!(
                volumes.resolve("main", Path::new(escaping)),
                Err(Error::InvalidArgument(_))
            ),
            "{escaping:?} accepted"
        );
        assert!(volumes
            .place(FileCategory::Wal, Path::new(escaping))
            .is_err());
    }
}

#[test]
fn volume_sets_are_validated() {
    let fs: Arc<dyn FileSystem> = Arc::new(MemFs::new());
    let policy: Arc<dyn PlacementPolicy> = Arc::new(FirstVolume);
    let build = |vols: Vec<Volume>| Volumes::new(fs.clone(), vols, policy.clone());
    let v = |name: &str| Volume::new(name, "/v", StorageType::Ssd);
    assert!(matches!(build(vec![]), Err(Error::InvalidArgument(_))));
    assert!(matches!(build(vec![v("")]), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        build(vec![v("a"), v("b"), v("a")]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(build(vec![v("a"), v("b")]).is_ok());
}

#[derive(Debug)]
struct Broken;

impl PlacementPolicy for Broken {
    fn choose(&self, _category: FileCategory, volumes: &[Volume]) -> usize {
        volumes.len()
    }
}

#[test]
fn an_out_of_range_choice_is_an_error_not_a_panic() {
    let volumes = three_volumes(&MemFs::new(), Arc::new(Broken));
    assert!(matches!(
        volumes.place(FileCategory::Flush, Path::new("f")),
        Err(Error::InvalidArgument(_))
    ));
}

fn tiered_volumes(fs: &MemFs, data: StoragePolicy, wal: StoragePolicy) -> Volumes {
    let volumes = vec![
        Volume::new("ssd0", "/ssd0", StorageType::Ssd),
        Volume::new("hdd0", "/hdd0", StorageType::Hdd),
        Volume::new("ssd1", "/ssd1", StorageType::Ssd),
        Volume::new("hdd1", "/hdd1", StorageType::Hdd),
        Volume::new("hdd2", "/hdd2", StorageType::Hdd),
    ];
    let policy = Arc::new(Tiered::new(data, wal));
    Volumes::new(Arc::new(fs.clone()), volumes, policy).unwrap()
}

fn placed_on(volumes: &Volumes, category: FileCategory) -> String {
    volumes.place(category, Path::new("r/f")).unwrap().volume
}

#[test]
fn storage_policies_parse_by_their_hbase_names() {
    for policy in StoragePolicy::ALL {
        let lower = policy.name().to_ascii_lowercase();
        assert_eq!(lower.parse::<StoragePolicy>().unwrap(), policy);
        assert_eq!(policy.to_string(), policy.name());
    }
    let err = "FAST".parse::<StoragePolicy>().unwrap_err().to_string();
    assert!(err.contains("ALL_SSD"), "{err}");
}

#[test]
fn tiered_follows_the_policy_per_category() {
    let fs = MemFs::new();
    let v = tiered_volumes(&fs, StoragePolicy::Warm, StoragePolicy::AllSsd);
    assert!(placed_on(&v, FileCategory::Wal).starts_with("ssd"));
    assert!(placed_on(&v, FileCategory::Flush).starts_with("ssd"));
    assert!(placed_on(&v, FileCategory::Compaction).starts_with("hdd"));
    let v = tiered_volumes(&fs, StoragePolicy::Cold, StoragePolicy::Cold);
    for category in FileCategory::ALL {
        assert!(placed_on(&v, category).starts_with("hdd"));
    }
}

#[test]
fn tiered_falls_back_when_a_type_has_no_volume() {
    let fs = MemFs::new();
    let volumes = vec![Volume::new("only", "/hdd", StorageType::Hdd)];
    let policy = Arc::new(Tiered::new(
        StoragePolicy::AllSsd,
        StoragePolicy::LazyPersist,
    ));
    let v = Volumes::new(Arc::new(fs), volumes, policy).unwrap();
    for category in FileCategory::ALL {
        assert_eq!(placed_on(&v, category), "only");
    }
}

#[test]
fn each_storage_type_rotates_on_its_own_counter() {
    let fs = MemFs::new();
    let v = tiered_volumes(&fs, StoragePolicy::Cold, StoragePolicy::AllSsd);
    // Interleave: the WAL's SSD turns must not shift the HDD rotation (HDFS-9608).
    let mut hdd = Vec::new();
    let mut ssd = Vec::new();
    for _ in 0..6 {
        hdd.push(placed_on(&v, FileCategory::Flush));
        ssd.push(placed_on(&v, FileCategory::Wal));
        ssd.push(placed_on(&v, FileCategory::Wal));
    }
    assert_eq!(hdd, ["hdd0", "hdd1", "hdd2", "hdd0", "hdd1", "hdd2"]);
    let per = |name: &str| ssd.iter().filter(|s| *s == name).count();
    assert_eq!((per("ssd0"), per("ssd1")), (6, 6));
}
