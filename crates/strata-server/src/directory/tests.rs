//! The directory on an engine in memory: tables, routing, and the change notification that
//! wakes writers waiting on a sealed region.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strata_engine::fs::MemFs;
use strata_engine::util::clock;
use strata_engine::{EngineOptions, FamilyOptions};

use super::TableDirectory;
use crate::error::ServiceError;
use crate::names::TableName;
use crate::splitter::SplitAt;

fn in_memory() -> TableDirectory {
    let mut options = EngineOptions::new("/db");
    options.fs = Arc::new(MemFs::new());
    options.background_work = false;
    let engine = strata_engine::Engine::open(options).unwrap();
    TableDirectory::open(engine, clock::system()).unwrap()
}

fn table() -> TableName {
    TableName::parse("t").unwrap()
}

#[test]
fn routes_rows_to_the_region_holding_them() {
    let dir = in_memory();
    let splits = vec![Bytes::from_static(b"g"), Bytes::from_static(b"p")];
    dir.create_table(&table(), vec![FamilyOptions::new("cf")], splits)
        .unwrap();
    let start_of = |row: &[u8]| {
        let (state, index) = dir.route(&table(), row).unwrap();
        state.regions[index].entry.start_key.clone()
    };
    assert_eq!(start_of(b"a"), Bytes::new());
    assert_eq!(start_of(b"g"), Bytes::from_static(b"g"));
    assert_eq!(start_of(b"o"), Bytes::from_static(b"g"));
    assert_eq!(start_of(b"zz"), Bytes::from_static(b"p"));
    dir.disable_table(&table()).unwrap();
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
    dir.create_table(&table(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let clock = clock::system();
    let seen = dir.change_count();
    assert!(
        !dir.wait_for_change(seen, clock.now() + Duration::from_millis(20)),
        "nothing changed, so the wait ends at its deadline"
    );
    let waiter = {
        let dir = Arc::clone(&dir);
        let clock = Arc::clone(&clock);
        std::thread::spawn(move || dir.wait_for_change(seen, clock.now() + Duration::from_secs(30)))
    };
    dir.split_region(&table(), SplitAt::Key(Bytes::from_static(b"m")))
        .unwrap();
    assert!(
        waiter.join().unwrap(),
        "the split's publication wakes the waiter"
    );
    assert_eq!(dir.table(&table()).unwrap().regions.len(), 2);
    assert!(dir.change_count() > seen);
}
