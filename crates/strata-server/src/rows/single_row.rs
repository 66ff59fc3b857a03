//! Single-row operations: point reads, HBase's check-and-mutate, increment and append. The
//! writes are short callers of [`RowOperations::with_row`].

use bytes::Bytes;
use strata_engine::{Cell, Get, RowResult};

use super::locked_row::RowWrite;
use super::RowOperations;
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::metrics::Operation;
use crate::names::TableName;
use crate::remote::Origin;
use crate::serving::{LockedRow, ServingRegion};

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

impl RowOperations {
    /// Reads one row through `filter`; `None` when nothing in it passes.
    pub(crate) fn get_filtered(
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
    pub(crate) fn get(&self, table: &TableName, get: &Get) -> Result<Option<RowResult>> {
        self.retry_sealed(Origin::Client, || self.get_from(Origin::Client, table, get))
    }

    /// [`RowOperations::get`] for a client or, served only from regions here, a peer.
    pub(crate) fn get_from(
        &self,
        origin: Origin,
        table: &TableName,
        get: &Get,
    ) -> Result<Option<RowResult>> {
        let _timer = self.metrics.start(Operation::Get, Some(table));
        let (state, index) = self.directory.route_checked(table, &get.row, |state| {
            get.columns.keys().try_for_each(|f| state.check_family(f))
        })?;
        ServingRegion::of(&state, index, origin)?.get(get)
    }

    /// Applies `cells` (all in the check's row) if the check passes; returns whether it did.
    pub(crate) fn check_and_mutate(
        &self,
        table: &TableName,
        check: &Check,
        cells: Vec<Cell>,
        durability: WriteDurability,
    ) -> Result<bool> {
        let _timer = self.metrics.start(Operation::CheckAndMutate, Some(table));
        let write = RowWrite {
            durability,
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
    pub(crate) fn append(
        &self,
        table: &TableName,
        row: &[u8],
        columns: &[(Bytes, Bytes, Bytes)],
    ) -> Result<Vec<Cell>> {
        let _timer = self.metrics.start(Operation::Append, Some(table));
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
    pub(crate) fn increment(
        &self,
        table: &TableName,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let _timer = self.metrics.start(Operation::Increment, Some(table));
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
