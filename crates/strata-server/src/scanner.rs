//! Server-side scanners: a client opens one, fetches rows in batches, and closes it. A
//! scanner idle for longer than the lease is dropped (with the files it pins), so an
//! abandoned client cannot hold resources forever.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_engine::{Region, RegionScanner, RowResult, Scan};

use crate::error::{Result, ServiceError};
use crate::filter::{Filter, RowOutcome};
use crate::names::TableName;
use crate::service::Service;

/// HBase's default scanner lease (hbase.client.scanner.timeout.period).
pub const SCANNER_LEASE: Duration = Duration::from_secs(60);

/// One open scanner: the regions still to scan, in scan order, and the current one.
struct ScannerState {
    scan: Scan,
    filter: Option<Filter>,
    /// With a filter, the engine reads every stored version and this many per column are
    /// kept after the filter (HBase filters among the stored versions first).
    versions_after_filter: u32,
    pending: Vec<Arc<Region>>,
    current: Option<RegionScanner>,
    returned: usize,
    last_used: Instant,
}

impl ScannerState {
    fn next_row(&mut self) -> Result<Option<RowResult>> {
        if self.scan.limit.is_some_and(|l| self.returned >= l) {
            return Ok(None);
        }
        loop {
            if let Some(scanner) = &mut self.current {
                if let Some(row) = scanner.next_row()? {
                    let outcome = match self.filter.as_mut() {
                        None => RowOutcome::Keep(row),
                        Some(filter) => filter.filter_row(row),
                    };
                    let row = match outcome {
                        RowOutcome::Keep(row) => trim_versions(row, self.versions_after_filter),
                        RowOutcome::Skip => continue,
                        RowOutcome::StopScan => {
                            self.pending.clear();
                            self.current = None;
                            return Ok(None);
                        }
                    };
                    self.returned += 1;
                    return Ok(Some(row));
                }
            }
            if self.pending.is_empty() {
                return Ok(None);
            }
            let region = self.pending.remove(0);
            // A region holds only its own rows, so the scan's bounds apply unchanged.
            self.current = Some(region.scan(&self.scan)?);
        }
    }
}

/// Keeps the newest `versions` cells of each column (cells come ordered by column, newest
/// first).
pub(crate) fn trim_versions(mut row: RowResult, versions: u32) -> RowResult {
    crate::filter::keep_newest(&mut row.cells, versions);
    row
}

/// The open scanners of the service.
#[derive(Default)]
pub struct Scanners {
    open: Mutex<HashMap<u64, Arc<Mutex<ScannerState>>>>,
    next_id: AtomicU64,
}

impl Scanners {
    /// Drops scanners idle past `lease`; returns how many.
    fn expire(&self, lease: Duration) -> usize {
        let now = Instant::now();
        let mut open = self.open.lock();
        let before = open.len();
        // A scanner in use (locked) is not idle, whatever its timestamp says.
        open.retain(|_, s| {
            s.try_lock()
                .is_none_or(|s| now.duration_since(s.last_used) < lease)
        });
        before - open.len()
    }

    /// Drops every scanner.
    pub fn clear(&self) {
        self.open.lock().clear();
    }

    /// Number of open scanners.
    pub(crate) fn count(&self) -> usize {
        self.open.lock().len()
    }
}

impl Service {
    /// Opens a scanner over `table`; returns its id.
    pub fn open_scanner(&self, table: &TableName, scan: Scan) -> Result<u64> {
        self.open_filtered_scanner(table, scan, None)
    }

    /// Opens a scanner whose rows pass through `filter` (HBase's filter language), applied
    /// after the versions of each row are chosen, as HBase does.
    pub fn open_filtered_scanner(
        &self,
        table: &TableName,
        mut scan: Scan,
        mut filter: Option<Filter>,
    ) -> Result<u64> {
        let _timer = self
            .metrics
            .start(crate::metrics::Operation::OpenScanner, Some(table));
        self.scanners.expire(self.options.scanner_lease);
        // Checked before the insert below: opens racing each other may overshoot the limit
        // by at most their number, which keeps the hot path free of a second lock.
        self.limits().check_scanner_count(self.scanners.count())?;
        let state = self.table(table)?;
        state.check_enabled()?;
        for family in scan.columns.keys() {
            state.check_family(family)?;
        }
        let mut pending: Vec<Arc<Region>> = state
            .regions
            .iter()
            .map(|r| Arc::clone(&r.region))
            .collect();
        if scan.reversed {
            pending.reverse();
        }
        let versions_after_filter = scan.max_versions;
        if let Some(f) = filter.as_mut() {
            f.set_reversed(scan.reversed);
            f.set_versions_after_filter(versions_after_filter);
            scan.max_versions = u32::MAX; // the family's VERSIONS caps it
        }
        let scanner = ScannerState {
            scan,
            filter,
            versions_after_filter,
            pending,
            current: None,
            returned: 0,
            last_used: Instant::now(),
        };
        let id = self.scanners.next_id.fetch_add(1, Ordering::AcqRel) + 1;
        self.scanners
            .open
            .lock()
            .insert(id, Arc::new(Mutex::new(scanner)));
        Ok(id)
    }

    /// Up to `max_rows` further rows of scanner `id` (empty when it is exhausted).
    pub fn scanner_next(&self, id: u64, max_rows: usize) -> Result<Vec<RowResult>> {
        let _timer = self
            .metrics
            .start(crate::metrics::Operation::ScannerNext, None);
        self.scanners.expire(self.options.scanner_lease);
        let scanner = self
            .scanners
            .open
            .lock()
            .get(&id)
            .cloned()
            .ok_or(ServiceError::ScannerNotFound(id))?;
        let mut scanner = scanner.lock();
        scanner.last_used = Instant::now();
        let mut rows = Vec::new();
        while rows.len() < max_rows.max(1) {
            match scanner.next_row()? {
                Some(row) => rows.push(row),
                None => break,
            }
        }
        Ok(rows)
    }

    /// Closes scanner `id`.
    pub fn close_scanner(&self, id: u64) -> Result<()> {
        self.scanners
            .open
            .lock()
            .remove(&id)
            .map(|_| ())
            .ok_or(ServiceError::ScannerNotFound(id))
    }

    /// Whether scanner `id` is still open (not closed, not expired).
    pub fn scanner_is_open(&self, id: u64) -> bool {
        self.scanners.open.lock().contains_key(&id)
    }

    /// Number of open scanners.
    pub fn open_scanner_count(&self) -> usize {
        self.scanners.count()
    }

    /// Closes every scanner idle longer than the lease; returns how many. Servers call this
    /// periodically, so abandoned scanners go even when no other scanner is used.
    pub fn expire_idle_scanners(&self) -> usize {
        self.scanners.expire(self.options.scanner_lease)
    }

    /// The scanner lease: how long a scanner may sit idle.
    pub fn scanner_lease(&self) -> Duration {
        self.options.scanner_lease
    }
}
