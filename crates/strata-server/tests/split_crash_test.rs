//! A crash at each step of a split leaves either the parent or both daughters live, with
//! every acknowledged row readable, and no leftover directories once references are gone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::fs::MemFs;
use strata_engine::RowRange;
use strata_engine::{Cell, Durability, FamilyOptions, Scan};
use strata_server::{Service, ServiceOptions, SplitAt, SplitPolicy, TableName};

fn t() -> TableName {
    TableName::parse("t").unwrap()
}

fn open(fs: &MemFs) -> Arc<Service> {
    let mut options = ServiceOptions::new("/data");
    options.engine.fs = Arc::new(fs.clone());
    options.engine.background_work = false;
    options.split = SplitPolicy {
        enabled: false,
        ..SplitPolicy::default()
    };
    Service::open(options).unwrap()
}

fn load(svc: &Service) {
    svc.admin()
        .create_table(&t(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    for i in 0..40 {
        let cell = Cell::put(format!("r{i:02}"), "cf", "q", 1, format!("v{i}"));
        svc.rows()
            .mutate(&t(), vec![cell], Durability::FsyncWal)
            .unwrap();
        if i == 20 {
            svc.admin().flush_table(&t()).unwrap();
        }
    }
}

fn row_count(svc: &Service) -> usize {
    let id = svc.scanners().open_scanner(&t(), Scan::new()).unwrap();
    svc.scanners().scanner_next(id, 1000).unwrap().len()
}

#[test]
fn crash_before_the_catalog_commit_keeps_the_parent() {
    let fs = MemFs::new();
    let svc = open(&fs);
    load(&svc);
    let parent = svc.admin().table_regions(&t()).unwrap()[0].id;
    // The steps of a split up to the commit: seal, write both daughters.
    let region = svc.engine().region(parent).unwrap();
    region.seal().unwrap();
    let families = vec![FamilyOptions::new("cf")];
    let halves = [
        (b"".to_vec(), b"r20".to_vec()),
        (b"r20".to_vec(), Vec::new()),
    ];
    for (i, (start, end)) in halves.into_iter().enumerate() {
        let range = RowRange { start, end };
        svc.engine()
            .create_reference_region(100 + i as u64, &families, &[(Arc::clone(&region), range)])
            .unwrap();
    }
    for seed in 0..3 {
        let crashed = if seed == 0 {
            fs.crash_process()
        } else {
            fs.crash_power_loss(seed)
        };
        let svc = open(&crashed);
        assert_eq!(svc.admin().table_regions(&t()).unwrap().len(), 1);
        assert_eq!(row_count(&svc), 40);
        assert_eq!(svc.engine().region_ids_on_disk().unwrap(), vec![0, parent]);
        // The parent takes writes again.
        let cell = Cell::put("r99", "cf", "q", 1, "x");
        svc.rows()
            .mutate(&t(), vec![cell], Durability::SyncWal)
            .unwrap();
    }
}

#[test]
fn crash_after_the_catalog_commit_keeps_both_daughters() {
    let fs = MemFs::new();
    let svc = open(&fs);
    load(&svc);
    let parent = svc.admin().table_regions(&t()).unwrap()[0].id;
    let (left, right) = svc
        .admin()
        .split_region(&t(), SplitAt::Key(Bytes::from("r20")))
        .unwrap();
    let cell = Cell::put("r30", "cf", "q2", 1, "after");
    svc.rows()
        .mutate(&t(), vec![cell], Durability::FsyncWal)
        .unwrap();
    for seed in 0..3 {
        let crashed = if seed == 0 {
            fs.crash_process()
        } else {
            fs.crash_power_loss(seed)
        };
        let svc = open(&crashed);
        let ids: Vec<u64> = svc
            .admin()
            .table_regions(&t())
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(ids, vec![left, right]);
        assert_eq!(row_count(&svc), 40);
        let got = svc
            .rows()
            .get(&t(), &strata_engine::Get::new("r30"))
            .unwrap()
            .unwrap();
        assert_eq!(got.cells.len(), 2, "the write after the split survives");
        // The parent's files stay while referenced, and go after the daughters compact.
        assert!(svc.engine().region_ids_on_disk().unwrap().contains(&parent));
        svc.admin().compact_table(&t(), false).unwrap();
        assert_eq!(
            svc.engine().region_ids_on_disk().unwrap(),
            vec![0, left, right]
        );
        assert_eq!(row_count(&svc), 40);
    }
    // A crash after the daughters' compaction: the parent is gone for good.
    svc.admin().compact_table(&t(), false).unwrap();
    let svc = open(&fs.crash_process());
    assert_eq!(row_count(&svc), 40);
    assert!(!svc.engine().region_ids_on_disk().unwrap().contains(&parent));
}

#[test]
fn crash_around_a_merge_keeps_either_the_sources_or_the_merged_region() {
    let fs = MemFs::new();
    let svc = open(&fs);
    load(&svc);
    let (left, right) = svc
        .admin()
        .split_region(&t(), SplitAt::Key(Bytes::from("r20")))
        .unwrap();
    // Before the merge's catalog commit: seal both sources and write the merged region.
    let (a, b) = (
        svc.engine().region(left).unwrap(),
        svc.engine().region(right).unwrap(),
    );
    a.seal().unwrap();
    b.seal().unwrap();
    let families = vec![FamilyOptions::new("cf")];
    let everything = || RowRange {
        start: Vec::new(),
        end: Vec::new(),
    };
    svc.engine()
        .create_reference_region(
            200,
            &families,
            &[
                (Arc::clone(&a), everything()),
                (Arc::clone(&b), everything()),
            ],
        )
        .unwrap();
    for seed in 0..3 {
        let crashed = if seed == 0 {
            fs.crash_process()
        } else {
            fs.crash_power_loss(seed)
        };
        let svc = open(&crashed);
        let ids: Vec<u64> = svc
            .admin()
            .table_regions(&t())
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(
            ids,
            vec![left, right],
            "an uncommitted merge leaves the sources live"
        );
        assert_eq!(row_count(&svc), 40);
        assert!(
            !svc.engine().region_ids_on_disk().unwrap().contains(&200),
            "the merged region's files are removed"
        );
    }
    // After a committed merge: the merged region is live after any crash.
    let fs2 = MemFs::new();
    let svc = open(&fs2);
    load(&svc);
    let (left, right) = svc
        .admin()
        .split_region(&t(), SplitAt::Key(Bytes::from("r20")))
        .unwrap();
    let merged = svc.admin().merge_regions(&t(), left, right).unwrap();
    let cell = Cell::put("r05", "cf", "q2", 1, "after");
    svc.rows()
        .mutate(&t(), vec![cell], Durability::FsyncWal)
        .unwrap();
    for seed in 0..3 {
        let crashed = if seed == 0 {
            fs2.crash_process()
        } else {
            fs2.crash_power_loss(seed)
        };
        let svc = open(&crashed);
        let ids: Vec<u64> = svc
            .admin()
            .table_regions(&t())
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(ids, vec![merged]);
        assert_eq!(row_count(&svc), 40);
        let got = svc
            .rows()
            .get(&t(), &strata_engine::Get::new("r05"))
            .unwrap()
            .unwrap();
        assert_eq!(got.cells.len(), 2, "the write after the merge survives");
    }
}
