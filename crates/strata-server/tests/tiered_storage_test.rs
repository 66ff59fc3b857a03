//! A family's STORAGE_POLICY places its files on the volumes of the storage type it names,
//! can be altered online, and is kept by the catalog across a restart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_engine::fs::{FileSystem, LocalFs, StoragePolicy, StorageType, Tiered, Volume};
use strata_engine::{Cell, Durability, FamilyOptions};
use strata_server::{AlterOp, Service, ServiceOptions, TableName};

/// A server whose data directory is an SSD volume, with one more SSD and one HDD volume,
/// placing by `HOT` (everything on HDD) unless a family says otherwise.
fn open(root: &Path) -> Arc<Service> {
    let mut options = ServiceOptions::new(root.join("ssd0"));
    options.engine.volumes = vec![
        Volume::new("default", root.join("ssd0"), StorageType::Ssd),
        Volume::new("ssd1", root.join("ssd1"), StorageType::Ssd),
        Volume::new("hdd0", root.join("hdd0"), StorageType::Hdd),
    ];
    let policy = Tiered::new(StoragePolicy::Hot, StoragePolicy::AllSsd);
    options.engine.placement = Some(Arc::new(policy));
    // Compactions only when the test asks, so file counts are exact.
    options.engine.background_work = false;
    Service::open(options).unwrap()
}

fn family(name: &str, policy: Option<StoragePolicy>) -> FamilyOptions {
    FamilyOptions {
        storage_policy: policy,
        ..FamilyOptions::new(name)
    }
}

/// The store files of `family` under the volume root `root`.
fn sst_files(root: &Path, family: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for name in LocalFs.list(&dir).unwrap_or_default() {
            let path = dir.join(&name);
            if name.ends_with(".sst") {
                if path.parent().is_some_and(|p| p.ends_with(family)) {
                    out.push(path);
                }
            } else {
                dirs.push(path);
            }
        }
    }
    out
}

fn write_and_flush(svc: &Service, table: &TableName, rows: u8) {
    for i in 0..rows {
        let cells = ["fast", "cold", "plain"]
            .map(|f| Cell::put(vec![b'r', i], f, "q", 10, vec![i]))
            .to_vec();
        svc.rows()
            .mutate(table, cells, Durability::SyncWal)
            .unwrap();
        svc.admin().flush_table(table).unwrap();
    }
}

#[test]
fn families_follow_their_storage_policy_and_keep_it_across_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let table = TableName::parse("t").unwrap();
    {
        let svc = open(root);
        let families = vec![
            family("fast", Some(StoragePolicy::AllSsd)),
            family("cold", Some(StoragePolicy::Cold)),
            family("plain", None),
        ];
        svc.admin().create_table(&table, families, vec![]).unwrap();
        write_and_flush(&svc, &table, 4);
        let on_ssd =
            |f| sst_files(&root.join("ssd0"), f).len() + sst_files(&root.join("ssd1"), f).len();
        assert_eq!(on_ssd("fast"), 4, "ALL_SSD flushes on SSD");
        assert_eq!(sst_files(&root.join("hdd0"), "fast").len(), 0);
        assert_eq!(
            sst_files(&root.join("hdd0"), "plain").len(),
            4,
            "the server's HOT"
        );
        svc.admin().compact_table(&table, true).unwrap();
        assert_eq!(
            sst_files(&root.join("hdd0"), "cold").len(),
            1,
            "COLD compactions on HDD"
        );
        assert_eq!(on_ssd("cold"), 0);
        let altered = family("plain", Some(StoragePolicy::OneSsd));
        svc.admin()
            .alter_table(&table, AlterOp::ModifyFamily(altered))
            .unwrap();
        svc.close().unwrap();
    }
    let svc = open(root);
    let described = svc.admin().describe_table(&table).unwrap();
    let policies: Vec<_> = described
        .families
        .iter()
        .map(|f| f.storage_policy)
        .collect();
    assert_eq!(
        policies,
        [
            Some(StoragePolicy::AllSsd),
            Some(StoragePolicy::Cold),
            Some(StoragePolicy::OneSsd)
        ]
    );
    let ssd_before =
        sst_files(&root.join("ssd0"), "plain").len() + sst_files(&root.join("ssd1"), "plain").len();
    write_and_flush(&svc, &table, 1);
    let ssd_after =
        sst_files(&root.join("ssd0"), "plain").len() + sst_files(&root.join("ssd1"), "plain").len();
    assert_eq!(
        ssd_after,
        ssd_before + 1,
        "ONE_SSD flushes on SSD after the restart"
    );
}
