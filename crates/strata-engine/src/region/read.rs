//! The read path of a region: Get and Scan.

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;

use super::scanner::{FamilyCursor, RegionScanner};
use super::Region;
use crate::api::{ColumnSelection, Get, RowResult, Scan, TimeRange};
use crate::error::{Error, Result};
use crate::iter::KvIter;
use crate::key;
use crate::read::matcher::{ReadParams, RowMatcher};
use crate::read::merge::MergingIter;
use crate::read::row::read_row;
use crate::store::{SourceFilter, Store};

impl Region {
    /// Reads one row. `None` when nothing in it is visible.
    pub fn get(&self, get: &Get) -> Result<Option<RowResult>> {
        // Registered while the stores' sources are read, so no compaction drops a version
        // this read point still needs (`Mvcc::smallest_read_point`).
        let reader = self.mvcc.begin_read();
        self.get_at(get, reader.point())
    }

    /// Reads one row as its newest queued writes left it, acknowledged or not: what a
    /// read-modify-write builds on, under the row's lock (every write of the row is then
    /// either in the memstores or not begun). Take a [`Region::failure_guard`] first.
    pub fn get_queued(&self, get: &Get) -> Result<Option<RowResult>> {
        self.get_at(get, u64::MAX)
    }

    /// `get` at an explicit read point (tests of reads in progress).
    #[cfg(test)]
    pub(crate) fn get_at_for_test(&self, get: &Get, read_point: u64) -> Result<Option<RowResult>> {
        self.get_at(get, read_point)
    }

    fn get_at(&self, get: &Get, read_point: u64) -> Result<Option<RowResult>> {
        self.requests.read();
        validate_read(get.max_versions, &get.time_range)?;
        let prefix = key::row_prefix(&get.row);
        let mut cells = Vec::new();
        for (family, store, qualifiers) in self.selected(&get.columns)? {
            let params = self.read_params(
                store,
                get.max_versions,
                get.time_range,
                qualifiers,
                read_point,
            );
            let single = qualifiers
                .filter(|q| q.len() == 1)
                .and_then(|q| q.iter().next());
            let filter = SourceFilter {
                row: Some(&get.row),
                qualifier: single.map(|q| q.as_ref()),
                start_key: prefix.clone(),
                end_key: key::row_end(&get.row),
                time_range: get.time_range,
                fill_cache: true,
            };
            let view = store.view();
            let mut iter = MergingIter::new(store.sources(&view, &filter)?);
            iter.seek(&prefix)?;
            let mut matcher = RowMatcher::new(params);
            read_row(
                &mut iter,
                &mut matcher,
                &get.row,
                &prefix,
                family,
                &mut cells,
            )?;
        }
        Ok((!cells.is_empty()).then(|| RowResult {
            row: get.row.clone(),
            cells,
        }))
    }

    /// Starts a scan. The scanner reads a consistent snapshot taken now.
    pub fn scan(&self, scan: &Scan) -> Result<RegionScanner> {
        self.requests.read();
        validate_read(scan.max_versions, &scan.time_range)?;
        // Registered until every store's view is taken; the views then keep their files.
        let reader = self.mvcc.begin_read();
        let read_point = reader.point();
        let (low, high) = if scan.reversed {
            (&scan.stop_row, &scan.start_row)
        } else {
            (&scan.start_row, &scan.stop_row)
        };
        let mut cursors = Vec::new();
        for (family, store, qualifiers) in self.selected(&scan.columns)? {
            let params = self.read_params(
                store,
                scan.max_versions,
                scan.time_range,
                qualifiers,
                read_point,
            );
            let filter = SourceFilter {
                row: None,
                qualifier: None,
                start_key: if low.is_empty() {
                    Vec::new()
                } else {
                    key::row_prefix(low)
                },
                end_key: if high.is_empty() {
                    Vec::new()
                } else if scan.reversed {
                    key::row_end(high)
                } else {
                    key::row_prefix(high)
                },
                time_range: scan.time_range,
                fill_cache: scan.cache_blocks,
            };
            let view = store.view();
            let iter = MergingIter::new(store.sources(&view, &filter)?);
            cursors.push(FamilyCursor {
                family: family.clone(),
                iter,
                matcher: RowMatcher::new(params),
                _view: view,
            });
        }
        drop(reader);
        Ok(RegionScanner::new(
            cursors,
            &scan.start_row,
            &scan.stop_row,
            scan.reversed,
            scan.limit,
        ))
    }

    /// The stores a read touches, with the qualifiers selected in each (`None` = all).
    #[allow(clippy::type_complexity)]
    fn selected<'a>(
        &'a self,
        columns: &'a ColumnSelection,
    ) -> Result<Vec<(&'a Bytes, &'a Arc<Store>, Option<&'a BTreeSet<Bytes>>)>> {
        if columns.is_empty() {
            return Ok(self.stores.iter().map(|(f, s)| (f, s, None)).collect());
        }
        columns
            .iter()
            .map(|(family, qualifiers)| Ok((family, self.store(family)?, qualifiers.as_ref())))
            .collect()
    }

    fn read_params(
        &self,
        store: &Store,
        versions: u32,
        time_range: TimeRange,
        qualifiers: Option<&BTreeSet<Bytes>>,
        read_point: u64,
    ) -> ReadParams {
        let family = store.family();
        // Only a TTL needs the clock; reading it on every get costs a syscall on some hosts.
        let oldest_unexpired_ts = match family.ttl_millis() {
            Some(ttl) => self.ctx.clock.now_millis().saturating_sub(ttl),
            None => i64::MIN,
        };
        ReadParams {
            read_point,
            time_range,
            max_versions: versions.min(family.max_versions),
            min_versions: family.min_versions,
            oldest_unexpired_ts,
            keep_deleted_cells: family.keep_deleted_cells
                != crate::options::KeepDeletedCells::False,
            columns: qualifiers.map(|set| set.iter().map(|q| key::escape_component(q)).collect()),
        }
    }
}

fn validate_read(max_versions: u32, time_range: &TimeRange) -> Result<()> {
    if max_versions == 0 {
        return Err(Error::InvalidArgument(
            "max versions must be at least 1".into(),
        ));
    }
    if time_range.min < 0 || time_range.max < time_range.min {
        return Err(Error::InvalidArgument(format!(
            "invalid time range [{}, {})",
            time_range.min, time_range.max
        )));
    }
    Ok(())
}
