//! The embedded API's (`strata-db`) "delete the latest version of a column", which must
//! read the newest version's timestamp and write the marker under the row lock.

use std::collections::HashMap;

use bytes::Bytes;
use strata_engine::{Cell, CellType, Get, LATEST_TIMESTAMP};

use super::locked_row::RowWrite;
use super::RowOperations;
use crate::durability::WriteDurability;
use crate::error::Result;
use crate::names::TableName;
use crate::serving::LockedRow;

impl RowOperations {
    /// Applies the cells of one row atomically. A single-version delete marker
    /// (`CellType::Delete`) at `LATEST_TIMESTAMP` first gets the timestamp of the newest
    /// version of its column (the n-th such marker of a column, the n-th newest), as HBase's
    /// `Delete.addColumn(family, qualifier)` without a timestamp does; a column without
    /// that many versions gets a marker at the current time, which deletes nothing older.
    pub(crate) fn mutate_row_resolving_latest(
        &self,
        table: &TableName,
        row: &[u8],
        cells: Vec<Cell>,
        durability: WriteDurability,
    ) -> Result<()> {
        let write = RowWrite {
            durability,
            ..RowWrite::hbase()
        };
        let families = cells.iter().map(|c| c.family.as_ref());
        self.with_row(table, row, families, write, |locked| {
            let mut cells = cells.clone();
            resolve_latest_deletes(locked, row, &mut cells)?;
            Ok((cells, ()))
        })
    }
}

/// Gives each latest-version delete marker in `cells` its column's version timestamp.
fn resolve_latest_deletes(locked: &LockedRow<'_>, row: &[u8], cells: &mut [Cell]) -> Result<()> {
    let is_latest_delete =
        |c: &Cell| c.cell_type == CellType::Delete && c.timestamp == LATEST_TIMESTAMP;
    let mut wanted: HashMap<(Bytes, Bytes), u32> = HashMap::new();
    for cell in cells.iter().filter(|c| is_latest_delete(c)) {
        *wanted
            .entry((cell.family.clone(), cell.qualifier.clone()))
            .or_default() += 1;
    }
    let mut versions: HashMap<(Bytes, Bytes), std::vec::IntoIter<i64>> = HashMap::new();
    for ((family, qualifier), count) in wanted {
        let get = Get::new(row.to_vec())
            .column(family.clone(), qualifier.clone())
            .versions(count);
        let stamps: Vec<i64> = locked
            .get(&get)?
            .map(|r| r.cells.iter().map(|c| c.timestamp).collect())
            .unwrap_or_default();
        versions.insert((family, qualifier), stamps.into_iter());
    }
    for cell in cells.iter_mut().filter(|c| is_latest_delete(c)) {
        let column = (cell.family.clone(), cell.qualifier.clone());
        cell.timestamp = versions
            .get_mut(&column)
            .and_then(Iterator::next)
            .unwrap_or_else(|| locked.server_timestamp(i64::MIN));
    }
    Ok(())
}
