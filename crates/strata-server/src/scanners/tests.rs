//! The registry through the service: leases on a manual clock, per-client caps, batching
//! and who may see a scanner.

use std::sync::Arc;
use std::time::Duration;

use strata_engine::{Cell, FamilyOptions, Scan};
use strata_runtime::clock::ManualClock;

use super::*;
use crate::service::{Service, ServiceOptions};

const LEASE: Duration = Duration::from_secs(60);

/// A service on a manual clock with table `t` holding `rows` rows of `cells` cells each.
fn service(dir: &tempfile::TempDir, rows: usize, cells: usize) -> (Arc<Service>, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_000));
    let mut options = ServiceOptions::new(dir.path());
    options.engine.clock = clock.clone();
    options.scanner_lease = LEASE;
    options.limits.max_scanners_per_client = 2;
    let service = Service::open(options).unwrap();
    let table = t();
    service
        .admin()
        .create_table(&table, vec![FamilyOptions::new("f")], vec![])
        .unwrap();
    for r in 0..rows {
        let row = format!("r{r}");
        let row_cells: Vec<Cell> = (0..cells)
            .map(|q| Cell::put(row.clone(), "f", format!("q{q}"), 1, "v"))
            .collect();
        service
            .rows()
            .mutate(&table, row_cells, crate::WriteDurability::UseDefault)
            .unwrap();
    }
    (service, clock)
}

fn t() -> TableName {
    TableName::parse("t").unwrap()
}

fn thrift(service: &Service, connection: u64, batch: Option<usize>) -> Result<u64> {
    let options = ScannerOptions {
        batch,
        owner: ScannerOwner::thrift(Some(connection)),
        ..ScannerOptions::embedded(Scan::new(), None)
    };
    service.scanners().open_scanner_with(&t(), options)
}

#[test]
fn an_idle_scanner_expires_when_the_clock_passes_its_lease() {
    let dir = tempfile::tempdir().unwrap();
    let (service, clock) = service(&dir, 3, 1);
    let idle = service.scanners().open_scanner(&t(), Scan::new()).unwrap();
    let used = service.scanners().open_scanner(&t(), Scan::new()).unwrap();
    clock.advance(LEASE.as_millis() as i64 - 1);
    assert_eq!(
        service.scanners().scanner_next(used, 1).unwrap().len(),
        1,
        "renews it"
    );
    assert_eq!(
        service.scanners().expire_idle_scanners(),
        0,
        "a millisecond is left"
    );
    clock.advance(1);
    assert_eq!(service.scanners().expire_idle_scanners(), 1);
    assert!(!service.scanners().scanner_is_open(idle));
    assert!(matches!(
        service.scanners().scanner_next(idle, 1),
        Err(ServiceError::ScannerNotFound(_))
    ));
    clock.advance(LEASE.as_millis() as i64);
    // Past its lease, a fetch finds it gone even before a tick drops it.
    assert!(service.scanners().scanner_next(used, 1).is_err());
    assert_eq!(service.scanners().open_scanner_count(), 0);
}

#[test]
fn each_client_holds_at_most_its_share() {
    let dir = tempfile::tempdir().unwrap();
    let (service, clock) = service(&dir, 1, 1);
    let first = thrift(&service, 1, None).unwrap();
    thrift(&service, 1, None).unwrap();
    let refused = thrift(&service, 1, None).unwrap_err().to_string();
    assert!(
        refused.contains("limits.max_scanners_per_client"),
        "{refused}"
    );
    thrift(&service, 2, None).unwrap();
    for _ in 0..3 {
        service.scanners().open_scanner(&t(), Scan::new()).unwrap();
    }
    service
        .scanners()
        .close_scanner_as(&ScannerLookup::THRIFT, first)
        .unwrap();
    thrift(&service, 1, None).unwrap();
    assert!(thrift(&service, 1, None).is_err());
    clock.advance(LEASE.as_millis() as i64);
    thrift(&service, 1, None).expect("expired scanners free their client's slots");
}

#[test]
fn a_batch_cuts_wide_rows_into_parts() {
    let dir = tempfile::tempdir().unwrap();
    let (service, _clock) = service(&dir, 2, 5);
    let id = thrift(&service, 1, Some(2)).unwrap();
    let next = service
        .scanners()
        .scanner_results(&ScannerLookup::THRIFT, id, 4)
        .unwrap();
    let sizes: Vec<usize> = next.results.iter().map(|r| r.cells.len()).collect();
    assert_eq!(sizes, [2, 2, 1, 2], "row r0 in three parts, then r1 begins");
    let cells = service
        .scanners()
        .scanner_cells(&ScannerLookup::THRIFT, id, None, 0)
        .unwrap();
    assert_eq!(cells.len(), 2, "the batch is the default fetch");
    assert_eq!(
        service
            .scanners()
            .scanner_cells(&ScannerLookup::THRIFT, id, Some(9), 0)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_scanner_is_seen_only_through_its_protocol_and_table() {
    let dir = tempfile::tempdir().unwrap();
    let (service, _clock) = service(&dir, 1, 1);
    let id = thrift(&service, 1, None).unwrap();
    assert!(
        service.scanners().scanner_next(id, 1).is_err(),
        "not an embedded one"
    );
    let other = TableName::parse("u").unwrap();
    let wrong_table = ScannerLookup {
        protocol: ScannerProtocol::Thrift,
        table: Some(&other),
    };
    assert!(service
        .scanners()
        .scanner_results(&wrong_table, id, 1)
        .is_err());
    assert!(service
        .scanners()
        .close_scanner_as(&wrong_table, id)
        .is_err());
    let right_table = ScannerLookup {
        table: Some(&t()),
        ..ScannerLookup::THRIFT
    };
    assert_eq!(
        service
            .scanners()
            .scanner_results(&right_table, id, 1)
            .unwrap()
            .results
            .len(),
        1
    );
}

#[test]
fn ids_fit_every_protocol_and_skip_open_ones_when_they_wrap() {
    let registry = ScannerRegistry::new(Arc::new(ManualClock::new(0)), LEASE);
    *registry.shared.last_id.lock() = MAX_ID - 1;
    let mut open = HashMap::new();
    assert_eq!(registry.next_free_id(&open), MAX_ID);
    assert_eq!(registry.next_free_id(&open), 1, "wraps to 1, never 0");
    *registry.shared.last_id.lock() = MAX_ID;
    let plan = cursor::CursorPlan {
        scan: Scan::new(),
        limit: None,
        filter: None,
        versions_after_filter: 1,
        regions: Default::default(),
        batch: None,
    };
    let entry = Entry {
        owner: ScannerOwner::EMBEDDED,
        table: t(),
        sorted_columns: false,
        batch: None,
        scanner: Arc::new(parking_lot::Mutex::new(OpenScanner {
            cursor: Cursor::new(plan),
            last_used: registry.shared.clock.now(),
        })),
    };
    open.insert(1, entry);
    assert_eq!(registry.next_free_id(&open), 2, "1 is still open");
}
