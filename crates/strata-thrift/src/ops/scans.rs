//! Scanners. The service layer owns the scan state; this side keeps what Thrift1 adds on top:
//! a 32-bit id, whether results come back as sorted columns, and HBase's `batchSize`, which
//! splits a wide row into several results of at most that many cells.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_engine::{RowResult, Scan};
use strata_server::Service;

use super::{before, table_name};
use crate::columns;
use crate::connection_scope::ConnectionId;
use crate::failure::{from_service, CallResult, Failure};
use crate::gen::volo_gen::hbase::{TRowResult, TScan};
use crate::results::row_results;

/// A Thrift scanner.
struct OpenScanner {
    service_id: u64,
    sorted: bool,
    batch: Option<usize>,
    /// Pieces of a row already split by `batch` but not yet returned.
    pending: VecDeque<RowResult>,
}

/// The open Thrift scanners (shared by every connection, as in HBase).
pub struct Scanners {
    open: Mutex<HashMap<i32, Entry>>,
    next_id: AtomicI32,
    /// Most scanners one connection may hold open.
    max_per_connection: usize,
}

/// A scanner and the connection that opened it (charged for it; outside the scanner's lock
/// so counting never waits for a scanner being read).
struct Entry {
    owner: Option<ConnectionId>,
    scanner: Arc<Mutex<OpenScanner>>,
}

impl Default for Scanners {
    fn default() -> Self {
        Scanners::new(crate::limits::DEFAULT_MAX_SCANNERS_PER_CONNECTION)
    }
}

/// What a Thrift call asks a scanner to do.
#[derive(Debug, Default)]
pub struct ScanRequest {
    pub start: Bytes,
    pub stop: Bytes,
    pub columns: Option<Vec<Bytes>>,
    pub timestamp: Option<i64>,
    pub filter: Option<Bytes>,
    pub sorted: bool,
    pub reversed: bool,
    pub batch: Option<i32>,
}

impl ScanRequest {
    /// From a TScan (`scannerOpenWithScan`).
    pub fn from_tscan(s: TScan) -> ScanRequest {
        ScanRequest {
            start: s.start_row.map(|t| t.0).unwrap_or_default(),
            stop: s.stop_row.map(|t| t.0).unwrap_or_default(),
            columns: s.columns.map(|c| c.into_iter().map(|t| t.0).collect()),
            timestamp: s.timestamp,
            filter: s.filter_string.map(|t| t.0),
            sorted: s.sort_columns.unwrap_or(false),
            reversed: s.reversed.unwrap_or(false),
            batch: s.batch_size,
        }
    }
}

/// The smallest key above every key starting with `prefix` (empty: no bound).
pub fn prefix_end(prefix: &[u8]) -> Bytes {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Bytes::from(end);
        }
    }
    Bytes::new()
}

impl Scanners {
    pub fn new(max_per_connection: usize) -> Scanners {
        Scanners {
            open: Mutex::new(HashMap::new()),
            next_id: AtomicI32::new(0),
            max_per_connection,
        }
    }

    /// Refuses a connection already holding its share of scanners. Counting walks the
    /// table: opens are rare next to reads, and the table is capped by `max_open_scanners`.
    /// Scanners the service expired still count until forgotten, so a connection at its cap
    /// has them forgotten first (the reaper also does, periodically).
    fn check_owner_share(&self, service: &Service, owner: Option<ConnectionId>) -> CallResult<()> {
        let Some(owner) = owner else {
            return Ok(());
        };
        let held = || {
            self.open
                .lock()
                .values()
                .filter(|e| e.owner == Some(owner))
                .count()
        };
        if held() < self.max_per_connection {
            return Ok(());
        }
        self.forget_expired(service);
        let held = held();
        if held >= self.max_per_connection {
            return Err(from_service(strata_server::ServiceError::LimitExceeded {
                limit: strata_server::limits::THRIFT_MAX_SCANNERS_PER_CONNECTION_KEY,
                value: held as u64 + 1,
                max: self.max_per_connection as u64,
            }));
        }
        Ok(())
    }

    pub fn open(
        &self,
        service: &Service,
        table: &[u8],
        req: ScanRequest,
        owner: Option<ConnectionId>,
    ) -> CallResult<i32> {
        self.check_owner_share(service, owner)?;
        let table = table_name(table)?;
        // A filter string that does not parse is refused with the position of the error
        // (scannerOpenWithScan declares no IllegalArgument, so it reaches the client as a
        // TApplicationException, as in HBase).
        let filter = match &req.filter {
            Some(text) => Some(
                service
                    .parse_filter(text)
                    .map_err(|e| Failure::illegal(format!("invalid filter string: {e}")))?,
            ),
            None => None,
        };
        let batch = match req.batch {
            Some(b) if b > 0 => Some(usize::try_from(b).unwrap_or(usize::MAX)),
            _ => None,
        };
        // HBase treats a scan whose start and stop rows are equal as a get of that row.
        let stop = if !req.start.is_empty() && req.start == req.stop && !req.reversed {
            let mut next = req.start.to_vec();
            next.push(0);
            Bytes::from(next)
        } else {
            req.stop
        };
        let mut scan = Scan::new().range(req.start, stop).reversed(req.reversed);
        scan.columns = columns::selection(req.columns.as_deref());
        if let Some(ts) = req.timestamp {
            scan.time_range = before(ts)?;
        }
        let service_id = service
            .open_filtered_scanner(&table, scan, filter)
            .map_err(from_service)?;
        let scanner = OpenScanner {
            service_id,
            sorted: req.sorted,
            batch,
            pending: VecDeque::new(),
        };
        // Thrift ids are 32-bit; they wrap after 2^31 scanners, long after the early ones expired.
        let id = self.next_id.fetch_add(1, Ordering::Relaxed).wrapping_add(1) & i32::MAX;
        let entry = Entry {
            owner,
            scanner: Arc::new(Mutex::new(scanner)),
        };
        self.open.lock().insert(id, entry);
        Ok(id)
    }

    fn get(&self, id: i32) -> CallResult<Arc<Mutex<OpenScanner>>> {
        self.open
            .lock()
            .get(&id)
            .map(|e| Arc::clone(&e.scanner))
            .ok_or_else(|| Failure::illegal(format!("scanner ID {id} is invalid")))
    }

    /// Up to `n` further results; empty once the scanner is exhausted.
    pub fn next(&self, service: &Service, id: i32, n: i32) -> CallResult<Vec<TRowResult>> {
        let scanner = self.get(id)?;
        let mut s = scanner.lock();
        // HBase rejects a negative count outright (and returns nothing for 0).
        let want = usize::try_from(n)
            .map_err(|_| Failure::Internal(format!("the number of rows to fetch is {n}")))?;
        let mut out: Vec<RowResult> = Vec::with_capacity(want.min(1024));
        while out.len() < want {
            if let Some(piece) = s.pending.pop_front() {
                out.push(piece);
                continue;
            }
            let rows = service
                .scanner_next(s.service_id, want - out.len())
                .map_err(|e| match e {
                    // The service expired it: to the client the id is simply no longer valid.
                    strata_server::ServiceError::ScannerNotFound(_) => {
                        Failure::illegal(format!("scanner ID {id} is invalid (expired)"))
                    }
                    e => from_service(e),
                })?;
            if rows.is_empty() {
                break;
            }
            for row in rows {
                match s.batch {
                    Some(b) => s.pending.extend(split(row, b)),
                    None => s.pending.push_back(row),
                }
            }
        }
        Ok(row_results(&out, s.sorted))
    }

    /// Forgets the scanners the service no longer has (expired past their lease): without
    /// this, each abandoned scanner would keep its entry here, and any rows it had split by
    /// `batch` but not returned, for the life of the server. Returns how many.
    pub fn forget_expired(&self, service: &Service) -> usize {
        let mut open = self.open.lock();
        let before = open.len();
        // One being read (locked) is in use, so not expired whatever the service says.
        open.retain(|_, e| {
            e.scanner
                .try_lock()
                .is_none_or(|s| service.scanner_is_open(s.service_id))
        });
        before - open.len()
    }

    /// Thrift scanners open now.
    pub fn open_count(&self) -> usize {
        self.open.lock().len()
    }

    pub fn close(&self, service: &Service, id: i32) -> CallResult<()> {
        let entry = self
            .open
            .lock()
            .remove(&id)
            .ok_or_else(|| Failure::illegal(format!("scanner ID {id} is invalid")))?;
        let service_id = entry.scanner.lock().service_id;
        match service.close_scanner(service_id) {
            // Already expired on the service side: closing it is still a success.
            Ok(()) | Err(strata_server::ServiceError::ScannerNotFound(_)) => Ok(()),
            Err(e) => Err(from_service(e)),
        }
    }
}

/// Splits a row into results of at most `batch` cells each.
fn split(row: RowResult, batch: usize) -> Vec<RowResult> {
    if row.cells.len() <= batch {
        return vec![row];
    }
    row.cells
        .chunks(batch)
        .map(|c| RowResult {
            row: row.row.clone(),
            cells: c.to_vec(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_engine::Cell;

    /// A service with table `t` and scanners leased for `lease`.
    fn service_with_table(dir: &tempfile::TempDir, lease: std::time::Duration) -> Arc<Service> {
        let mut options = strata_server::ServiceOptions::new(dir.path());
        options.scanner_lease = lease;
        let service = Service::open(options).unwrap();
        let table = strata_server::TableName::parse("t").unwrap();
        let family = strata_engine::FamilyOptions::new("cf");
        service.create_table(&table, vec![family], vec![]).unwrap();
        service
    }

    #[test]
    fn each_connection_holds_at_most_its_share_of_scanners() {
        let dir = tempfile::tempdir().unwrap();
        let service = service_with_table(&dir, std::time::Duration::from_secs(60));
        let scanners = Scanners::new(2);
        let open = |owner| scanners.open(&service, b"t", ScanRequest::default(), owner);
        let (a, b) = (Some(ConnectionId(1)), Some(ConnectionId(2)));
        let first = open(a).unwrap();
        open(a).unwrap();
        let refused = format!("{:?}", open(a).unwrap_err());
        assert!(
            refused.contains("thrift_max_scanners_per_connection"),
            "{refused}"
        );
        open(b).unwrap();
        open(None).unwrap();
        open(None).unwrap();
        open(None).unwrap();
        scanners.close(&service, first).unwrap();
        open(a).unwrap();
        assert!(open(a).is_err());
    }

    #[test]
    fn scanners_the_service_expired_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let service = service_with_table(&dir, std::time::Duration::from_millis(1));
        let scanners = Scanners::default();
        let request = || ScanRequest {
            batch: Some(1),
            ..ScanRequest::default()
        };
        let kept = scanners.open(&service, b"t", request(), None).unwrap();
        scanners.open(&service, b"t", request(), None).unwrap();
        assert_eq!(scanners.forget_expired(&service), 0, "both still open");
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(service.expire_idle_scanners(), 2);
        assert_eq!(scanners.forget_expired(&service), 2);
        assert_eq!(scanners.open_count(), 0);
        assert!(
            scanners.next(&service, kept, 1).is_err(),
            "its id is invalid now"
        );
    }

    #[test]
    fn prefix_end_skips_trailing_ff() {
        assert_eq!(prefix_end(b"ab"), Bytes::from_static(b"ac"));
        assert_eq!(prefix_end(b"a\xff"), Bytes::from_static(b"b"));
        assert_eq!(prefix_end(b"\xff\xff"), Bytes::new());
        assert_eq!(prefix_end(b""), Bytes::new());
    }

    #[test]
    fn split_cuts_wide_rows() {
        let row = RowResult {
            row: Bytes::from_static(b"r"),
            cells: (0..5)
                .map(|i| Cell::put("r", "f", format!("q{i}"), 1, "v"))
                .collect(),
        };
        let parts = split(row, 2);
        assert_eq!(
            parts.iter().map(|p| p.cells.len()).collect::<Vec<_>>(),
            [2, 2, 1]
        );
    }
}
