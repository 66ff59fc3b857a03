//! The service's one registry of server-side scanners, for every front end: a client opens
//! one, fetches results in batches and closes it. The registry holds what each protocol
//! used to keep on its own: the ids, who owns a scanner (and so the per-client caps),
//! HBase's cell batching, and the lease. A scanner idle for longer than the lease is
//! dropped (with the files it pins), so an abandoned client cannot hold resources forever;
//! leases are read from the service's clock, so tests move time instead of waiting.
//!
//! Ids stay below 2^31: Thrift carries them as an `i32`, REST as hex, the embedded API as
//! a `u64`, and all three are the same number.

mod cursor;
mod options;
mod owner;
mod reaper;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_engine::Cell;
use strata_runtime::clock::Clock;

pub(crate) use cursor::{trim_versions, CursorPlan};
pub use options::{ScannerLookup, ScannerOptions, ScannerResults};
pub use owner::{ScannerClient, ScannerOwner, ScannerProtocol};

use crate::error::{Result, ServiceError};
use crate::limits::Limits;
use crate::names::TableName;
use cursor::Cursor;

/// HBase's default scanner lease (hbase.client.scanner.timeout.period).
pub const SCANNER_LEASE: Duration = Duration::from_secs(60);

/// The largest id: every protocol's id type holds it (Thrift's is an `i32`).
const MAX_ID: u64 = i32::MAX as u64;

/// A scanner and when it was last used (both under one lock: a scanner being read is in
/// use, whatever its timestamp says).
struct OpenScanner {
    cursor: Cursor,
    last_used: Instant,
}

/// A registry entry. Owner and table sit outside the scanner's lock, so counting a
/// client's scanners or checking a lookup never waits for a scanner being read.
struct Entry {
    owner: ScannerOwner,
    table: TableName,
    /// Thrift's `sortColumns`: results as a sorted list rather than a map.
    sorted_columns: bool,
    /// The cells per result the client asked for (REST's default fetch size).
    batch: Option<usize>,
    scanner: Arc<Mutex<OpenScanner>>,
}

/// What the expiry thread shares with the registry.
struct Shared {
    open: Mutex<HashMap<u64, Entry>>,
    /// The last id handed out.
    last_id: Mutex<u64>,
    clock: Arc<dyn Clock>,
    lease: Duration,
}

/// The open scanners of the service.
pub struct ScannerRegistry {
    shared: Arc<Shared>,
    reaper: reaper::Reaper,
}

impl ScannerRegistry {
    /// An empty registry whose scanners expire after `lease` of `clock`'s time.
    pub fn new(clock: Arc<dyn Clock>, lease: Duration) -> ScannerRegistry {
        ScannerRegistry {
            shared: Arc::new(Shared {
                open: Mutex::new(HashMap::new()),
                last_id: Mutex::new(0),
                clock,
                lease,
            }),
            reaper: reaper::Reaper::default(),
        }
    }

    /// Drops every scanner.
    pub fn clear(&self) {
        self.shared.open.lock().clear();
    }

    /// Number of open scanners.
    pub fn count(&self) -> usize {
        self.shared.open.lock().len()
    }

    /// The lease: how long a scanner may sit idle.
    pub fn lease(&self) -> Duration {
        self.shared.lease
    }

    /// Drops scanners idle past the lease; returns how many. The expiry thread calls it
    /// periodically, and opens call it first so an expired scanner never holds a slot.
    pub fn expire_idle(&self) -> usize {
        self.shared.expire_idle()
    }

    /// Checks that `owner` may open one more scanner under `limits`.
    pub(crate) fn check_room(&self, limits: &Limits, owner: ScannerOwner) -> Result<()> {
        // Checked before the insert: opens racing each other may overshoot a limit by at
        // most their number, which keeps the open path to one short lock.
        let open = self.shared.open.lock();
        limits.check_scanner_count(open.len())?;
        let Some(client) = owner.client else {
            return Ok(());
        };
        // Counting walks the table: opens are rare next to reads, and the table is capped
        // by `max_open_scanners`.
        let held = open
            .values()
            .filter(|e| e.owner.client == Some(client))
            .count();
        limits.check_client_scanner_count(held)
    }

    /// Registers a scanner reading `plan`; returns its id.
    pub(crate) fn insert(
        &self,
        table: TableName,
        options: &ScannerOptions,
        plan: CursorPlan,
    ) -> u64 {
        let cursor = Cursor::new(plan);
        let entry = Entry {
            owner: options.owner,
            table,
            sorted_columns: options.sorted_columns,
            batch: options.batch,
            scanner: Arc::new(Mutex::new(OpenScanner {
                cursor,
                last_used: self.shared.clock.now(),
            })),
        };
        let mut open = self.shared.open.lock();
        let id = self.next_free_id(&open);
        open.insert(id, entry);
        self.reaper.ensure_started(&self.shared);
        id
    }

    /// The id after the last one handed out that no open scanner holds. Ids wrap after
    /// 2^31 - 1 scanners, long after the early ones closed or expired; the open table is
    /// capped far below that, so a free id is always found.
    fn next_free_id(&self, open: &HashMap<u64, Entry>) -> u64 {
        let mut last = self.shared.last_id.lock();
        loop {
            *last = *last % MAX_ID + 1;
            if !open.contains_key(&*last) {
                return *last;
            }
        }
    }

    /// The scanner `id`, if `lookup` may see it and its lease has not run out (an expired
    /// one is dropped here rather than waiting for the next tick).
    fn find(&self, lookup: &ScannerLookup<'_>, id: u64) -> Result<Found> {
        let mut open = self.shared.open.lock();
        let entry = open
            .get(&id)
            .filter(|e| lookup.may_see(e.owner.protocol, &e.table))
            .ok_or(ServiceError::ScannerNotFound(id))?;
        if self.shared.is_idle(entry) {
            open.remove(&id);
            return Err(ServiceError::ScannerNotFound(id));
        }
        Ok(Found {
            scanner: Arc::clone(&entry.scanner),
            sorted_columns: entry.sorted_columns,
            batch: entry.batch,
        })
    }

    /// Up to `max_results` further results of scanner `id`, in at most `budget` of
    /// filtering when one is given (see `Cursor::take_results_within`).
    pub(crate) fn results(
        &self,
        lookup: &ScannerLookup<'_>,
        id: u64,
        max_results: usize,
        budget: Option<Duration>,
    ) -> Result<ScannerResults> {
        let found = self.find(lookup, id)?;
        let clock = self.shared.clock.as_ref();
        let deadline = budget.map(|b| clock.now() + b);
        let out_of_time = || deadline.is_some_and(|d| clock.now() >= d);
        let (results, out_of_time) = found
            .lock(clock)
            .cursor
            .take_results_within(max_results, &out_of_time)?;
        Ok(ScannerResults {
            results,
            sorted_columns: found.sorted_columns,
            out_of_time,
        })
    }

    /// Up to `max_cells` further cells of scanner `id` (`None`: its batch), from at most
    /// `max_rows` rows (see `Cursor::take_cells`).
    pub(crate) fn cells(
        &self,
        lookup: &ScannerLookup<'_>,
        id: u64,
        max_cells: Option<usize>,
        max_rows: usize,
    ) -> Result<Vec<Cell>> {
        let found = self.find(lookup, id)?;
        let max_cells = max_cells.or(found.batch).unwrap_or(usize::MAX);
        let mut scanner = found.lock(self.shared.clock.as_ref());
        scanner.cursor.take_cells(max_cells, max_rows)
    }

    /// Removes scanner `id`, if `lookup` may see it.
    pub(crate) fn remove(&self, lookup: &ScannerLookup<'_>, id: u64) -> Result<()> {
        let mut open = self.shared.open.lock();
        match open.get(&id) {
            Some(e) if lookup.may_see(e.owner.protocol, &e.table) => {
                open.remove(&id);
                Ok(())
            }
            _ => Err(ServiceError::ScannerNotFound(id)),
        }
    }

    /// Whether scanner `id` is open (not closed, not expired).
    pub(crate) fn contains(&self, id: u64) -> bool {
        self.shared.open.lock().contains_key(&id)
    }
}

/// A scanner found by id, with what its owner asked for at open.
struct Found {
    scanner: Arc<Mutex<OpenScanner>>,
    sorted_columns: bool,
    batch: Option<usize>,
}

impl Found {
    /// Locks the scanner and renews its lease.
    fn lock(&self, clock: &dyn Clock) -> parking_lot::MutexGuard<'_, OpenScanner> {
        let mut scanner = self.scanner.lock();
        scanner.last_used = clock.now();
        scanner
    }
}

impl Shared {
    fn expire_idle(&self) -> usize {
        let mut open = self.open.lock();
        let before = open.len();
        open.retain(|_, e| !self.is_idle(e));
        before - open.len()
    }

    /// Whether `entry` has sat unused for the whole lease. A scanner in use (locked) is
    /// not idle, whatever its timestamp says.
    fn is_idle(&self, entry: &Entry) -> bool {
        let now = self.clock.now();
        entry
            .scanner
            .try_lock()
            .is_some_and(|s| now.saturating_duration_since(s.last_used) >= self.lease)
    }
}
