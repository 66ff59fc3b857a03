//! Row operations: mutations routed to regions by row, point reads, and every single-row
//! read-modify-write (increment, append, check-and-mutate, Bigtable's CheckAndMutateRow and
//! ReadModifyWriteRow, the embedded API's latest-version delete), all built on
//! [`RowOperations::with_row`] (`locked_row.rs`).
//!
//! Every write path ends in `mutate.rs` or `locked_row.rs`, and both report the regions they
//! wrote to the splitter. A write that meets a region sealed by a split or merge was not
//! applied; it waits for the directory to publish the table's new regions and runs again.

mod forwarded;
mod latest_delete;
mod locked_row;
mod mutate;
mod read_modify_write;
mod single_row;

use std::sync::Arc;
use std::time::Duration;

use strata_runtime::clock::Clock;

use crate::directory::TableDirectory;
use crate::error::{Result, ServiceError};
use crate::limits::Limits;
use crate::metrics::RequestMetrics;
use crate::remote::Origin;
use crate::row_locks::RowLocks;
use crate::splitter::Splitter;
use crate::write_budget::{WriteBudget, WriteCharge};

pub use single_row::{Check, CompareOp};

/// How long a write waits for a split or merge of its region to finish (they take
/// milliseconds; this only bounds a stuck one).
const SEALED_RETRY: Duration = Duration::from_secs(30);

/// How often a request for a region its owner does not serve (yet) is tried again: the
/// owner opening a region it was assigned changes nothing this server waits on.
const NOT_SERVING_POLL: Duration = Duration::from_millis(20);

/// Reads and writes of rows, over the table directory.
pub(crate) struct RowOperations {
    directory: Arc<TableDirectory>,
    splitter: Arc<Splitter>,
    row_locks: RowLocks,
    /// Bytes of writes between acceptance and their memstores (see `write_budget.rs`).
    write_budget: WriteBudget,
    limits: Limits,
    metrics: Arc<RequestMetrics>,
    clock: Arc<dyn Clock>,
}

impl RowOperations {
    pub(crate) fn new(
        directory: Arc<TableDirectory>,
        splitter: Arc<Splitter>,
        limits: Limits,
        metrics: Arc<RequestMetrics>,
        clock: Arc<dyn Clock>,
    ) -> RowOperations {
        RowOperations {
            write_budget: WriteBudget::new(limits.max_write_bytes_in_flight),
            directory,
            splitter,
            row_locks: RowLocks::default(),
            limits,
            metrics,
            clock,
        }
    }

    /// Bytes that accepted writes hold while waiting for their memstores.
    pub(crate) fn write_bytes_in_flight(&self) -> usize {
        self.write_budget.in_flight()
    }

    /// Charges `bytes` to the budget of writes in flight, or refuses them as too busy.
    fn charge_write(&self, bytes: usize) -> Result<WriteCharge> {
        self.write_budget.try_charge(bytes).ok_or_else(|| {
            ServiceError::Engine(strata_engine::Error::TooBusy(format!(
                "writes in flight hold {} of limits.{} = {} bytes; this one needs {bytes} more",
                self.write_budget.in_flight(),
                crate::limits::MAX_WRITE_BYTES_IN_FLIGHT_KEY,
                self.write_budget.capacity(),
            )))
        })
    }

    /// Runs `op` again while it fails on a region sealed for a split or merge (a refused
    /// write applied nothing), each time after the directory published a table change, for
    /// up to [`SEALED_RETRY`].
    ///
    /// A client's request that met a region served elsewhere than the directory said (the
    /// owner answered `NotServingRegion`: the region moved) waits the same way, for the
    /// directory to learn where it went. A request forwarded by a peer never waits: the
    /// peer decides, with its own view.
    fn retry_sealed<T>(&self, origin: Origin, mut op: impl FnMut() -> Result<T>) -> Result<T> {
        let deadline = self.clock.now() + SEALED_RETRY;
        loop {
            let seen = self.directory.changes().count();
            let outcome = op();
            let retry = match &outcome {
                Err(e) if origin == Origin::Client => self.wait_to_retry(e, seen, deadline),
                Err(ServiceError::Engine(e)) if e.is_region_sealed() => {
                    self.wait_for_change(seen, deadline)
                }
                _ => false,
            };
            if !retry {
                return outcome;
            }
        }
    }

    /// Waits until a client's request that failed with `error` may be sent again (answers
    /// true), or answers false when it should fail: `error` says nothing is moving, or
    /// `deadline` passed. A sealed region waits for the directory to publish its new
    /// regions; a region its peer does not serve, or a peer that cannot be reached (it
    /// died: its regions are being reassigned), is polled, because that peer opening it
    /// or the directory learning its new owner may come first. A write whose outcome is
    /// unknown never gets here as `PeerUnavailable` (see `locked_row.rs`).
    fn wait_to_retry(&self, error: &ServiceError, seen: u64, deadline: std::time::Instant) -> bool {
        match error {
            ServiceError::Engine(e) if e.is_region_sealed() => self.wait_for_change(seen, deadline),
            ServiceError::NotServingRegion { .. } | ServiceError::PeerUnavailable { .. } => {
                if crate::inline::refuse_wait("a moving region").is_err() {
                    return false;
                }
                let poll = (self.clock.now() + NOT_SERVING_POLL).min(deadline);
                self.directory.changes().wait(seen, poll);
                self.clock.now() < deadline
            }
            _ => false,
        }
    }

    /// Waits until the directory publishes a change after `seen`, or `deadline`; false
    /// when the deadline passed first, or when the call may not wait (`crate::inline`).
    fn wait_for_change(&self, seen: u64, deadline: std::time::Instant) -> bool {
        crate::inline::refuse_wait("a region change").is_ok()
            && self.directory.changes().wait(seen, deadline)
    }
}
