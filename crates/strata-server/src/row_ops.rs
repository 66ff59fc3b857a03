//! Row operations: mutations routed to regions by row, point reads, increment, append and
//! check-and-mutate (the last three through [`Service::with_row`]).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use strata_engine::{Cell, Get, PendingWrite, Region, RowResult};

use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::locked_row::{LockedRow, RowWrite};
use crate::names::TableName;
use crate::service::Service;
use crate::table::TableState;

/// How long a write waits for a split or merge of its region to finish (they take
/// milliseconds; this only bounds a stuck one).
pub(crate) const SEALED_RETRY: std::time::Duration = std::time::Duration::from_secs(30);

/// Check-and-mutate compares with HBase's CompareOperator (the same type as the filter
/// language's). Like HBase, it compares the value given in the request with the value
/// stored: `Less` passes when the given value is less than the stored one (`HRegion`
/// compares `comparator.compareTo(cellValue)`).
pub use crate::filter::CompareOp;

fn check_passes(op: CompareOp, given: &[u8], stored: &[u8]) -> bool {
    op.keeps(given.cmp(stored))
}

/// The condition of a check-and-mutate: the newest version of one column compared with
/// `value`; `value: None` requires the column to have no visible value.
#[derive(Debug, Clone)]
pub struct Check {
    pub row: bytes::Bytes,
    pub family: bytes::Bytes,
    pub qualifier: bytes::Bytes,
    pub op: CompareOp,
    pub value: Option<bytes::Bytes>,
}

impl Service {
    /// Applies `cells` (one region's share atomically; HBase guarantees atomicity per row).
    pub fn mutate(
        &self,
        table: &TableName,
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<()> {
        self.mutate_in(crate::limits::Dialect::Hbase, table, cells, durability)
    }

    /// [`Service::mutate`] under the size limits of `dialect`.
    pub fn mutate_in(
        &self,
        dialect: crate::limits::Dialect,
        table: &TableName,
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<()> {
        let _charge = self.charge_write(&cells)?;
        self.mutate_charged(dialect, table, cells, durability.into())
    }

    /// HBase's multi-row batch: each row's cells are one atomic mutation, and a row that
    /// fails does not stop the others. The whole batch is charged to the budget of writes
    /// in flight once, for as long as its rows are applied; if it does not fit, nothing is
    /// applied and the error is the outer one. Otherwise each row's outcome, in order.
    pub fn mutate_each_row(
        &self,
        table: &TableName,
        rows: Vec<Vec<Cell>>,
        durability: impl Into<WriteDurability>,
    ) -> Result<Vec<Result<()>>> {
        let durability = durability.into();
        let bytes = rows
            .iter()
            .map(|r| crate::write_budget::cells_bytes(r))
            .sum();
        let _charge = self.charge_write_bytes(bytes)?;
        Ok(rows
            .into_iter()
            .map(|cells| {
                self.mutate_charged(crate::limits::Dialect::Hbase, table, cells, durability)
            })
            .collect())
    }

    /// A mutation whose bytes are already charged to the write budget.
    fn mutate_charged(
        &self,
        dialect: crate::limits::Dialect,
        table: &TableName,
        cells: Vec<Cell>,
        durability: WriteDurability,
    ) -> Result<()> {
        let _timer = self
            .metrics
            .start(crate::metrics::Operation::Mutate, Some(table));
        self.limits().check_cells(&cells, dialect)?;
        let state = self.table(table)?;
        state.check_enabled()?;
        for cell in &cells {
            state.check_family(&cell.family)?;
        }
        // Row locks make plain writes wait for a read-modify-write of the same row, as in
        // HBase, so an increment never overwrites a put that landed between its read and
        // its write. They are held only while the writes are queued: see `locked_row.rs`.
        let locks = self
            .row_locks
            .lock_all(table, cells.iter().map(|c| c.row.as_ref()));
        let mut queued: Option<QueuedShare> = None;
        let mut outcomes = Vec::new();
        let mut pending = cells;
        let mut state = state;
        let deadline = std::time::Instant::now() + SEALED_RETRY;
        loop {
            // A share refused by a region being split or merged was not applied; it is
            // routed again on the table's new regions.
            let mut refused = Vec::new();
            for (region, cells) in split_by_region(&state, pending).into_values() {
                // One share unresolved at a time: queuing the next may wait for memstore
                // room, and the flush that makes room waits for the writes in its snapshot.
                outcomes.extend(queued.take().map(QueuedShare::wait));
                match region.mutate_queued(cells.clone(), state.durability_for(durability), None) {
                    Ok(write) => {
                        queued = Some(QueuedShare {
                            write,
                            region: Arc::clone(region),
                            regions: state.regions.len(),
                        })
                    }
                    Err(e) if e.is_region_sealed() && Instant::now() < deadline => {
                        refused.extend(cells)
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            if refused.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
            pending = refused;
            state = self.table(table)?;
            state.check_enabled()?;
        }
        drop(locks);
        outcomes.extend(queued.take().map(QueuedShare::wait));
        for (outcome, region, regions) in outcomes {
            outcome?;
            self.maybe_split(table, &region, regions);
        }
        Ok(())
    }

    /// Bytes that accepted writes hold while waiting for their memstores.
    pub fn write_bytes_in_flight(&self) -> usize {
        self.write_budget.in_flight()
    }

    /// Charges `cells` to the budget of writes in flight, or refuses them as too busy.
    fn charge_write(&self, cells: &[Cell]) -> Result<crate::write_budget::WriteCharge> {
        self.charge_write_bytes(crate::write_budget::cells_bytes(cells))
    }

    fn charge_write_bytes(&self, bytes: usize) -> Result<crate::write_budget::WriteCharge> {
        self.write_budget.try_charge(bytes).ok_or_else(|| {
            ServiceError::Engine(strata_engine::Error::TooBusy(format!(
                "writes in flight hold {} of limits.{} = {} bytes; this one needs {bytes} more",
                self.write_budget.in_flight(),
                crate::limits::MAX_WRITE_BYTES_IN_FLIGHT_KEY,
                self.write_budget.capacity(),
            )))
        })
    }

    /// Runs a read-modify-write again while its region is sealed for a split or merge (its
    /// write was refused, so nothing was applied).
    pub(crate) fn retry_sealed<T>(&self, mut op: impl FnMut() -> Result<T>) -> Result<T> {
        let deadline = Instant::now() + SEALED_RETRY;
        loop {
            match op() {
                Err(ServiceError::Engine(e))
                    if e.is_region_sealed() && Instant::now() < deadline =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                other => return other,
            }
        }
    }

    /// Reads one row through `filter`; `None` when nothing in it passes.
    pub fn get_filtered(
        &self,
        table: &TableName,
        get: &Get,
        filter: Option<crate::filter::Filter>,
    ) -> Result<Option<RowResult>> {
        let Some(mut filter) = filter else {
            return self.get(table, get);
        };
        // HBase shows the filter the stored versions (up to the family's VERSIONS) and the
        // filter applies the read's version limit itself, as a scan's does.
        let mut every_version = get.clone();
        every_version.max_versions = u32::MAX;
        filter.set_versions_after_filter(get.max_versions);
        Ok(
            match self
                .get(table, &every_version)?
                .map(|row| filter.filter_row(row))
            {
                Some(crate::filter::RowOutcome::Keep(row)) => {
                    Some(crate::scanners::trim_versions(row, get.max_versions))
                }
                _ => None,
            },
        )
    }

    /// Reads one row; `None` when nothing in it is visible.
    pub fn get(&self, table: &TableName, get: &Get) -> Result<Option<RowResult>> {
        let _timer = self
            .metrics
            .start(crate::metrics::Operation::Get, Some(table));
        let state = self.table(table)?;
        state.check_enabled()?;
        for family in get.columns.keys() {
            state.check_family(family)?;
        }
        Ok(state.region_for(&get.row).region.get(get)?)
    }

    /// Applies `cells` (all in the check's row) if the check passes; returns whether it did.
    pub fn check_and_mutate(
        &self,
        table: &TableName,
        check: &Check,
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<bool> {
        let _timer = self
            .metrics
            .start(crate::metrics::Operation::CheckAndMutate, Some(table));
        let write = RowWrite {
            durability: durability.into(),
            ..RowWrite::hbase()
        };
        let families = std::iter::once(check.family.as_ref());
        self.with_row(table, &check.row, families, write, |row| {
            let current = row.newest_cell(&check.family, &check.qualifier)?;
            let passes = match (&check.value, &current) {
                (None, None) => true,
                (None, Some(_)) | (Some(_), None) => false,
                (Some(given), Some(stored)) => check_passes(check.op, given, &stored.value),
            };
            Ok((if passes { cells.clone() } else { Vec::new() }, passes))
        })
    }

    /// Atomically appends each `(family, qualifier, suffix)` to its cell's value (a missing
    /// cell counts as empty) in one row mutation, and returns the new cells. Like HBase's
    /// Append, every new cell gets the same timestamp: max(now, newest previous + 1).
    pub fn append(
        &self,
        table: &TableName,
        row: &[u8],
        columns: &[(Bytes, Bytes, Bytes)],
    ) -> Result<Vec<Cell>> {
        let _timer = self
            .metrics
            .start(crate::metrics::Operation::Append, Some(table));
        let families = columns.iter().map(|(family, _, _)| family.as_ref());
        self.with_row(table, row, families, RowWrite::hbase(), |locked| {
            let cells = appended_cells(locked, row, columns)?;
            Ok((cells.clone(), cells))
        })
    }

    /// Atomically adds `amount` to the 8-byte big-endian counter in a cell (a missing cell
    /// counts as 0) and returns the new value. Like HBase: the sum wraps on overflow, the new
    /// version's timestamp is max(now, previous + 1), and a value that is not 8 bytes wide
    /// is an error.
    pub fn increment(
        &self,
        table: &TableName,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let _timer = self
            .metrics
            .start(crate::metrics::Operation::Increment, Some(table));
        let families = std::iter::once(family);
        self.with_row(table, row, families, RowWrite::hbase(), |locked| {
            let (value, previous_ts) = match locked.newest_cell(family, qualifier)? {
                None => (0, i64::MIN),
                Some(c) => (counter_value(&c.value)?, c.timestamp),
            };
            let new_value = value.wrapping_add(amount);
            let ts = locked.server_timestamp(previous_ts.saturating_add(1));
            let put = Cell::put(
                row.to_vec(),
                family.to_vec(),
                qualifier.to_vec(),
                ts,
                new_value.to_be_bytes().to_vec(),
            );
            Ok((vec![put], new_value))
        })
    }
}

/// The cells of an append: each column's newest value with its suffix, all at one timestamp
/// past every column's newest version.
fn appended_cells(
    locked: &LockedRow<'_>,
    row: &[u8],
    columns: &[(Bytes, Bytes, Bytes)],
) -> Result<Vec<Cell>> {
    let mut values = Vec::with_capacity(columns.len());
    let mut at_least = i64::MIN;
    for (family, qualifier, suffix) in columns {
        let current = locked.newest_cell(family, qualifier)?;
        if let Some(c) = &current {
            at_least = at_least.max(c.timestamp.saturating_add(1));
        }
        let mut value = current.map(|c| c.value.to_vec()).unwrap_or_default();
        value.extend_from_slice(suffix);
        values.push(value);
    }
    let ts = locked.server_timestamp(at_least);
    Ok(columns
        .iter()
        .zip(values)
        .map(|((family, qualifier, _), value)| {
            Cell::put(row.to_vec(), family.clone(), qualifier.clone(), ts, value)
        })
        .collect())
}

/// One region's share of a mutation, queued and not yet acknowledged.
struct QueuedShare {
    write: PendingWrite,
    region: Arc<Region>,
    regions: usize,
}

impl QueuedShare {
    /// Waits for the share; its outcome, region and the table's region count then.
    fn wait(self) -> (Result<()>, Arc<Region>, usize) {
        let outcome = self.write.wait().map(|_| ()).map_err(Into::into);
        (outcome, self.region, self.regions)
    }
}

/// Groups `cells` by the region of `state` that holds their row.
fn split_by_region(
    state: &TableState,
    cells: Vec<Cell>,
) -> BTreeMap<usize, (&Arc<Region>, Vec<Cell>)> {
    let mut by_region: BTreeMap<usize, (&Arc<Region>, Vec<Cell>)> = BTreeMap::new();
    for cell in cells {
        let idx = state
            .regions
            .partition_point(|r| r.entry.start_key.as_ref() <= cell.row.as_ref())
            .saturating_sub(1);
        if let Some(open) = state.regions.get(idx) {
            by_region
                .entry(idx)
                .or_insert_with(|| (&open.region, Vec::new()))
                .1
                .push(cell);
        }
    }
    by_region
}

/// A counter cell's value: 8 bytes, big-endian, as HBase stores it.
fn counter_value(value: &[u8]) -> Result<i64> {
    let bytes: [u8; 8] = value.try_into().map_err(|_| {
        ServiceError::IncompatibleValue(format!(
            "field is not 64 bits wide: the current value has {} bytes",
            value.len()
        ))
    })?;
    Ok(i64::from_be_bytes(bytes))
}
