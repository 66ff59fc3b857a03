//! Service operations the embedded API (`strata-db`) needs beyond what the network adapters
//! use today: HBase's "delete the latest version of a column", which must read the newest
//! version's timestamp and write the marker under the row lock.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_engine::{Cell, CellType, Get, Region, LATEST_TIMESTAMP};

use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::service::Service;

/// How long a row write waits for a split or merge of its region (as `data.rs` does).
const SEALED_RETRY: Duration = Duration::from_secs(30);

impl Service {
    /// Applies the cells of one row atomically. A single-version delete marker
    /// (`CellType::Delete`) at `LATEST_TIMESTAMP` first gets the timestamp of the newest
    /// version of its column (the n-th such marker of a column, the n-th newest), as HBase's
    /// `Delete.addColumn(family, qualifier)` without a timestamp does; a column without
    /// that many versions gets a marker at the current time, which deletes nothing older.
    pub fn mutate_row_resolving_latest(
        &self,
        table: &TableName,
        row: &[u8],
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<()> {
        let durability = durability.into();
        self.limits()
            .check_cells(&cells, crate::limits::Dialect::Hbase)?;
        let deadline = Instant::now() + SEALED_RETRY;
        loop {
            match self.mutate_row_once(table, row, cells.clone(), durability) {
                Err(ServiceError::Engine(e))
                    if e.is_region_sealed() && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                other => return other,
            }
        }
    }

    fn mutate_row_once(
        &self,
        table: &TableName,
        row: &[u8],
        mut cells: Vec<Cell>,
        durability: WriteDurability,
    ) -> Result<()> {
        let state = self.table(table)?;
        state.check_enabled()?;
        for cell in &cells {
            state.check_family(&cell.family)?;
            if cell.row.as_ref() != row {
                return Err(ServiceError::InvalidArgument(
                    "a row mutation must stay in its row".into(),
                ));
            }
        }
        let _row = self.row_locks.lock(table, row);
        let open = state.region_for(row);
        let now = self.options.engine.clock.now_millis();
        resolve_latest_deletes(&open.region, row, &mut cells, now)?;
        open.region
            .mutate(cells, state.durability_for(durability))?;
        self.maybe_split(table, &open.region, state.regions.len());
        Ok(())
    }
}

/// Gives each latest-version delete marker in `cells` its column's version timestamp.
fn resolve_latest_deletes(region: &Region, row: &[u8], cells: &mut [Cell], now: i64) -> Result<()> {
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
        let stamps: Vec<i64> = region
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
            .unwrap_or(now);
    }
    Ok(())
}
