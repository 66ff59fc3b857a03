//! The directory on an engine in memory: tables, routing, and the change notification that
//! wakes writers waiting on a sealed region.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strata_engine::fs::MemFs;
use strata_engine::{EngineOptions, FamilyOptions};
use strata_runtime::clock;

use super::TableDirectory;
use crate::error::ServiceError;
use crate::names::TableName;
use crate::table_changes::SplitAt;

fn in_memory() -> TableDirectory {
    let mut options = EngineOptions::new("/db");
    options.fs = Arc::new(MemFs::new());
    options.background_work = false;
    let engine = strata_engine::Engine::open(options).unwrap();
    TableDirectory::open(engine, clock::system(), None, None).unwrap()
}

fn table() -> TableName {
    TableName::parse("t").unwrap()
}

#[test]
fn routes_rows_to_the_region_holding_them() {
    let dir = in_memory();
    let splits = vec![Bytes::from_static(b"g"), Bytes::from_static(b"p")];
    dir.table_admin()
        .create(&table(), vec![FamilyOptions::new("cf")], splits)
        .unwrap();
    let start_of = |row: &[u8]| {
        let (state, index) = dir.route(&table(), row).unwrap();
        state.regions[index].entry.start_key.clone()
    };
    assert_eq!(start_of(b"a"), Bytes::new());
    assert_eq!(start_of(b"g"), Bytes::from_static(b"g"));
    assert_eq!(start_of(b"o"), Bytes::from_static(b"g"));
    assert_eq!(start_of(b"zz"), Bytes::from_static(b"p"));
    dir.table_admin().disable(&table()).unwrap();
    assert!(matches!(
        dir.route(&table(), b"a"),
        Err(ServiceError::TableDisabled(_))
    ));
    assert!(matches!(
        dir.route(&TableName::parse("none").unwrap(), b"a"),
        Err(ServiceError::TableNotFound(_))
    ));
}

#[test]
fn a_split_wakes_a_waiter_and_a_quiet_directory_times_out() {
    let dir = Arc::new(in_memory());
    dir.table_admin()
        .create(&table(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let clock = clock::system();
    let seen = dir.changes().count();
    assert!(
        !dir.changes()
            .wait(seen, clock.now() + Duration::from_millis(20)),
        "nothing changed, so the wait ends at its deadline"
    );
    let waiter = {
        let dir = Arc::clone(&dir);
        let clock = Arc::clone(&clock);
        std::thread::spawn(move || {
            dir.changes()
                .wait(seen, clock.now() + Duration::from_secs(30))
        })
    };
    dir.region_changes()
        .split(&table(), SplitAt::Key(Bytes::from_static(b"m")))
        .unwrap();
    assert!(
        waiter.join().unwrap(),
        "the split's publication wakes the waiter"
    );
    assert_eq!(dir.table(&table()).unwrap().regions.len(), 2);
    assert!(dir.changes().count() > seen);
}

/// Records every claim; refuses region ids listed in `refuse`.
#[derive(Debug, Default)]
struct RecordingRegistry {
    claims: parking_lot::Mutex<Vec<(String, u64, Bytes, Bytes)>>,
    refuse: Vec<u64>,
}

impl crate::registry::RegionRegistry for RecordingRegistry {
    fn claim(&self, region: crate::registry::RegionClaim<'_>) -> crate::error::Result<()> {
        if self.refuse.contains(&region.id) {
            let moved = format!("region {} moved", region.id);
            return Err(strata_engine::Error::Closed(moved).into());
        }
        self.claims.lock().push((
            region.table.to_string(),
            region.id,
            Bytes::copy_from_slice(region.start),
            Bytes::copy_from_slice(region.end),
        ));
        Ok(())
    }
}

#[test]
fn every_region_is_claimed_before_it_opens_including_the_catalog_and_daughters() {
    let mut options = EngineOptions::new("/db");
    options.fs = Arc::new(MemFs::new());
    options.background_work = false;
    let engine = strata_engine::Engine::open(options).unwrap();
    let registry = Arc::new(RecordingRegistry::default());
    let dir = TableDirectory::open(engine, clock::system(), Some(registry.clone()), None).unwrap();
    let splits = vec![Bytes::from_static(b"m")];
    dir.table_admin()
        .create(&table(), vec![FamilyOptions::new("cf")], splits)
        .unwrap();
    let (left, right) = dir
        .region_changes()
        .split(&table(), SplitAt::Key(Bytes::from_static(b"f")))
        .unwrap();
    let claims = registry.claims.lock().clone();
    let names: Vec<(&str, u64)> = claims.iter().map(|c| (c.0.as_str(), c.1)).collect();
    assert_eq!(names[0], ("strata:catalog", 0));
    assert_eq!(names[1..3], [("t", 1), ("t", 2)]);
    assert_eq!(names[3..], [("t", left), ("t", right)]);
    assert_eq!(
        (claims[3].2.as_ref(), claims[3].3.as_ref()),
        (&b""[..], &b"f"[..])
    );
    assert_eq!(
        (claims[4].2.as_ref(), claims[4].3.as_ref()),
        (&b"f"[..], &b"m"[..])
    );
}

#[test]
fn a_refused_claim_keeps_the_region_closed() {
    let mut options = EngineOptions::new("/db");
    options.fs = Arc::new(MemFs::new());
    options.background_work = false;
    let engine = strata_engine::Engine::open(options).unwrap();
    let registry = Arc::new(RecordingRegistry {
        refuse: vec![1],
        ..Default::default()
    });
    let dir =
        TableDirectory::open(Arc::clone(&engine), clock::system(), Some(registry), None).unwrap();
    let err = dir
        .table_admin()
        .create(&table(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap_err();
    assert!(err.to_string().contains("moved"), "{err}");
    assert!(engine.region(1).is_none());
}

#[derive(Debug)]
struct SwitchGate(std::sync::atomic::AtomicBool);

impl crate::registry::ServingGate for SwitchGate {
    fn check(&self) -> std::result::Result<(), String> {
        match self.0.load(std::sync::atomic::Ordering::SeqCst) {
            true => Ok(()),
            false => Err("lease deadline passed".into()),
        }
    }
}

#[test]
fn a_closed_serving_gate_refuses_every_lookup_with_a_retryable_error() {
    let dir = in_memory();
    dir.table_admin()
        .create(&table(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let gate = Arc::new(SwitchGate(std::sync::atomic::AtomicBool::new(true)));
    dir.set_serving_gate(Some(gate.clone()));
    assert!(dir.route(&table(), b"a").is_ok());
    gate.0.store(false, std::sync::atomic::Ordering::SeqCst);
    let err = dir.route(&table(), b"a").err().unwrap();
    assert!(err.kind().is_retryable(), "{err}");
    assert!(err.to_string().contains("lease deadline passed"), "{err}");
    gate.0.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(
        dir.table(&table()).is_ok(),
        "serving resumes with the lease"
    );
}
