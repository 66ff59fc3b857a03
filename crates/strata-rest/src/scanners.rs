//! The gateway's stateful scanners. HBase's REST scanners hand out a number of *cells* per
//! fetch (the scanner's batch), so a row may be split across fetches; each scanner keeps the
//! cells of the row it is part-way through. The rows come from a service-layer scanner.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_engine::Cell;
use strata_server::{Service, ServiceError, TableName};

use crate::error::{RestError, RestResult};

/// One open REST scanner.
pub struct RestScanner {
    service_id: u64,
    pub batch: usize,
    buffer: VecDeque<Cell>,
    exhausted: bool,
    last_used: Instant,
}

/// An open scanner with the table it belongs to (readable without locking the scanner).
type Entry = (TableName, Arc<Mutex<RestScanner>>);

/// Every open REST scanner, by id.
#[derive(Default)]
pub struct RestScanners {
    open: Mutex<HashMap<String, Entry>>,
}

impl RestScanners {
    /// Registers a service scanner; returns the REST scanner's id.
    pub fn add(
        &self,
        service: &Service,
        table: TableName,
        service_id: u64,
        batch: usize,
        limits: (usize, Duration),
    ) -> RestResult<String> {
        let (max_open, lease) = limits;
        self.expire(service, lease);
        let mut open = self.open.lock();
        if open.len() >= max_open {
            drop(open);
            // Best effort: the scanner just opened is not wanted.
            let _ = service.close_scanner(service_id);
            return Err(RestError::Unavailable(format!(
                "{max_open} scanners are open already; close some or wait for them to expire"
            )));
        }
        let id = format!("{service_id:016x}");
        let scanner = RestScanner {
            service_id,
            batch,
            buffer: VecDeque::new(),
            exhausted: false,
            last_used: Instant::now(),
        };
        open.insert(id.clone(), (table, Arc::new(Mutex::new(scanner))));
        Ok(id)
    }

    /// Closes scanners idle longer than `lease` (their service scanners expire by then too).
    fn expire(&self, service: &Service, lease: Duration) {
        let now = Instant::now();
        let mut expired = Vec::new();
        self.open.lock().retain(|_, (_, s)| {
            let keep = s
                .try_lock()
                .is_none_or(|s| now.duration_since(s.last_used) < lease);
            if !keep {
                expired.push(Arc::clone(s));
            }
            keep
        });
        for scanner in expired {
            let _ = service.close_scanner(scanner.lock().service_id);
        }
    }

    /// The scanner `id` of `table`.
    pub fn get(&self, table: &TableName, id: &str) -> RestResult<Arc<Mutex<RestScanner>>> {
        self.open
            .lock()
            .get(id)
            .filter(|(t, _)| t == table)
            .map(|(_, s)| Arc::clone(s))
            .ok_or_else(|| {
                RestError::NotFound(format!("scanner {id} does not exist or has expired"))
            })
    }

    /// Closes scanner `id` of `table`.
    pub fn remove(&self, service: &Service, table: &TableName, id: &str) -> RestResult<()> {
        let scanner = self.get(table, id)?;
        self.open.lock().remove(id);
        let service_id = scanner.lock().service_id;
        match service.close_scanner(service_id) {
            // Expired below us already: it is gone either way.
            Ok(()) | Err(ServiceError::ScannerNotFound(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Forgets scanner `id` (its service scanner expired).
    pub fn forget(&self, id: &str) {
        self.open.lock().remove(id);
    }
}

impl RestScanner {
    /// Up to `max_cells` further cells, spanning at most `max_rows` rows (0: any number).
    pub fn next_cells(
        &mut self,
        service: &Service,
        max_cells: usize,
        max_rows: usize,
    ) -> RestResult<Vec<Cell>> {
        self.last_used = Instant::now();
        let mut cells: Vec<Cell> = Vec::new();
        let mut rows = 0usize;
        while cells.len() < max_cells {
            if self.buffer.is_empty() && !self.fill(service)? {
                break;
            }
            let Some(next) = self.buffer.front() else {
                break;
            };
            let new_row = cells.last().is_none_or(|c| c.row != next.row);
            if new_row {
                if max_rows > 0 && rows == max_rows {
                    break;
                }
                rows += 1;
            }
            if let Some(cell) = self.buffer.pop_front() {
                cells.push(cell);
            }
        }
        Ok(cells)
    }

    /// Reads the next row into the buffer; false when the scan is over.
    fn fill(&mut self, service: &Service) -> RestResult<bool> {
        if self.exhausted {
            return Ok(false);
        }
        let rows = service.scanner_next(self.service_id, 1)?;
        match rows.into_iter().next() {
            Some(row) => {
                self.buffer.extend(row.cells);
                Ok(true)
            }
            None => {
                self.exhausted = true;
                Ok(false)
            }
        }
    }
}
