//! A move's release of a region its owner is still opening (cluster mode, seed 123 of the
//! simulation): the owner had claimed the region and its replay waited on the store when
//! the master asked for the release.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_engine::fs::MemFs;
use strata_engine::{EngineOptions, FamilyOptions};
use strata_runtime::clock;

use super::TableDirectory;
use crate::names::TableName;
use crate::registry::{Placement, RegionClaim, RegionRegistry};
use crate::remote::{Origin, RegionWork, RowSpan, Unplaced};

/// How long the release is given to answer while the open is held.
const ANSWER_WITHIN: Duration = Duration::from_millis(300);

/// A registry that places the table's region here once `here` is set, and holds the
/// first open after that in `recovered_edits` until told to go on.
#[derive(Debug, Default)]
struct HeldOpen {
    here: AtomicBool,
    entered: Mutex<Option<mpsc::Sender<()>>>,
    go_on: Mutex<Option<mpsc::Receiver<()>>>,
    released: Mutex<Vec<u64>>,
}

impl RegionRegistry for HeldOpen {
    fn claim(&self, _region: RegionClaim<'_>) -> crate::error::Result<()> {
        Ok(())
    }

    fn placement(&self, region: RegionClaim<'_>) -> Placement {
        if self.here.load(Ordering::SeqCst) {
            Placement::Here
        } else {
            Placement::Peer(Arc::new(Unplaced { region: region.id }))
        }
    }

    fn recovered_edits(
        &self,
        _region: RegionClaim<'_>,
    ) -> crate::error::Result<Vec<strata_engine::codec::WalEdit>> {
        if let Some(entered) = self.entered.lock().take() {
            entered.send(()).unwrap();
            let go_on = self.go_on.lock().take().unwrap();
            go_on.recv().unwrap();
        }
        Ok(Vec::new())
    }

    fn released(&self, region: RegionClaim<'_>) {
        self.released.lock().push(region.id);
    }
}

fn table() -> TableName {
    TableName::parse("t").unwrap()
}

#[test]
fn a_release_asked_while_the_region_opens_here_waits_and_releases_it() {
    let mut options = EngineOptions::new("/db");
    options.fs = Arc::new(MemFs::new());
    options.background_work = false;
    let engine = strata_engine::Engine::open(options).unwrap();
    let registry = Arc::new(HeldOpen::default());
    let dir = Arc::new(
        TableDirectory::open(
            Arc::clone(&engine),
            clock::system(),
            Some(registry.clone()),
            None,
        )
        .unwrap(),
    );
    dir.table_admin()
        .create(&table(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let id = dir.table(&table()).unwrap().regions[0].entry.id;
    assert!(engine.region(id).is_none(), "placed elsewhere at first");

    // The region is assigned here; its open claims it and then waits on the store.
    let (entered_tx, entered) = mpsc::channel();
    let (go_on, go_on_rx) = mpsc::channel();
    *registry.entered.lock() = Some(entered_tx);
    *registry.go_on.lock() = Some(go_on_rx);
    registry.here.store(true, Ordering::SeqCst);
    let opening = {
        let dir = Arc::clone(&dir);
        std::thread::spawn(move || dir.placements().refresh())
    };
    entered.recv().unwrap();

    // The master, moving it away, asks for its release meanwhile.
    let releasing = {
        let dir = Arc::clone(&dir);
        let whole = RowSpan {
            start: Bytes::new(),
            end: Bytes::new(),
        };
        std::thread::spawn(move || {
            dir.maintenance()
                .on_span(&table(), &whole, RegionWork::Release, Origin::Peer)
        })
    };
    let clock = clock::system();
    let asked = clock.now();
    while !releasing.is_finished() && clock.elapsed(asked) < ANSWER_WITHIN {
        clock.sleep(Duration::from_millis(5));
    }
    go_on.send(()).unwrap();
    opening.join().unwrap().unwrap();
    releasing.join().unwrap().unwrap();

    assert!(
        engine.region(id).is_none(),
        "the region the master moved away still serves here"
    );
    assert!(dir.table(&table()).unwrap().regions[0].local().is_none());
    assert_eq!(*registry.released.lock(), vec![id]);
}

#[test]
fn a_release_asked_for_a_region_not_open_here_marks_it_released() {
    let mut options = EngineOptions::new("/db");
    options.fs = Arc::new(MemFs::new());
    options.background_work = false;
    let engine = strata_engine::Engine::open(options).unwrap();
    let registry = Arc::new(HeldOpen::default());
    let dir = TableDirectory::open(engine, clock::system(), Some(registry.clone()), None).unwrap();
    dir.table_admin()
        .create(&table(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let id = dir.table(&table()).unwrap().regions[0].entry.id;
    let whole = RowSpan {
        start: Bytes::new(),
        end: Bytes::new(),
    };
    let bytes = dir
        .maintenance()
        .on_span(&table(), &whole, RegionWork::Release, Origin::Peer)
        .unwrap();
    assert_eq!(bytes, 0);
    assert_eq!(
        *registry.released.lock(),
        vec![id],
        "not opened here later at the epoch it is moved from"
    );
}
