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
use crate::names::TableName;
use crate::service::Service;

/// HBase's default scanner lease (hbase.client.scanner.timeout.period).
pub const SCANNER_LEASE: Duration = Duration::from_secs(60);

/// One open scanner: the regions still to scan, in scan order, and the current one.
struct ScannerState {
    scan: Scan,
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

/// The open scanners of the service.
#[derive(Default)]
pub struct Scanners {
    open: Mutex<HashMap<u64, Arc<Mutex<ScannerState>>>>,
    next_id: AtomicU64,
}

impl Scanners {
    fn expire(&self, lease: Duration) {
        let now = Instant::now();
        // A scanner in use (locked) is not idle, whatever its timestamp says.
        self.open.lock().retain(|_, s| {
            s.try_lock()
                .is_none_or(|s| now.duration_since(s.last_used) < lease)
        });
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
        self.scanners.expire(self.options.scanner_lease);
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
        let scanner = ScannerState {
            scan,
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

    /// Number of open scanners.
    pub fn open_scanner_count(&self) -> usize {
        self.scanners.count()
    }
}
