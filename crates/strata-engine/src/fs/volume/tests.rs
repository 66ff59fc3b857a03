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
