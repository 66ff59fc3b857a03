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
use crate::store::{SourceFilter, Store, StoreView};

impl Region {
    /// Reads one row. `None` when nothing in it is visible. A read of row-cache families
    /// only may be answered by the row cache (`cached_read.rs`).
    pub fn get(&self, get: &Get) -> Result<Option<RowResult>> {
        if let Some(key) = self.row_cache_key(get) {
            return self.get_cached(get, key);
        }
        let (views, read_point) = self.snapshot(&get.columns)?;
        self.get_from(get, &views, read_point)
    }

    /// Reads one row as its newest queued writes left it, acknowledged or not: what a
    /// read-modify-write builds on, under the row's lock (every write of the row is then
    /// either in the memstores or not begun). Take a [`Region::failure_guard`] first.
    pub fn get_queued(&self, get: &Get) -> Result<Option<RowResult>> {
        let views = self.views(&get.columns)?;
        self.get_from(get, &views, u64::MAX)
    }

    /// The selected stores' views and a read point that go together: the views are taken
    /// first, then the read point, and the views must not have changed meanwhile (else
    /// again). So a read never pairs a read point with files a compaction wrote after it
    /// (such a compaction may have dropped versions that read point needs), nor misses a
    /// write a flush's memstore swap moved out of its views; and every family is read at
    /// one point (a mutation shows whole or not at all). Views change only when a flush or
    /// a compaction installs its result, so a retry is rare.
    pub(super) fn snapshot<'a>(
        &'a self,
        columns: &'a ColumnSelection,
    ) -> Result<(Vec<SelectedView<'a>>, u64)> {
        loop {
            let views = self.views(columns)?;
            #[cfg(test)]
            crate::util::test_hook::run(BETWEEN_VIEWS_AND_READ_POINT);
            let read_point = self.mvcc.read_point();
            if views.iter().all(|v| Arc::ptr_eq(&v.view, &v.store.view())) {
                return Ok((views, read_point));
            }
        }
    }

    fn views<'a>(&'a self, columns: &'a ColumnSelection) -> Result<Vec<SelectedView<'a>>> {
        Ok(self
            .selected(columns)?
            .into_iter()
            .map(|(family, store, qualifiers)| SelectedView {
                family,
                store,
                qualifiers,
                view: store.view(),
            })
            .collect())
    }

    pub(super) fn get_from(
        &self,
        get: &Get,
        views: &[SelectedView<'_>],
        read_point: u64,
    ) -> Result<Option<RowResult>> {
        self.requests.read();
        validate_get(get)?;
        let prefix = key::row_prefix(&get.row);
        let mut cells = Vec::new();
        for selected in views {
            let (family, store, qualifiers) =
                (selected.family, selected.store, selected.qualifiers);
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
            let mut iter = MergingIter::new(store.sources(&selected.view, &filter)?);
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
        // The views (which then keep their files) and the read point, taken together.
        let (views, read_point) = self.snapshot(&scan.columns)?;
        let (low, high) = if scan.reversed {
            (&scan.stop_row, &scan.start_row)
        } else {
            (&scan.start_row, &scan.stop_row)
        };
        let mut cursors = Vec::new();
        for selected in views {
            let (family, store, qualifiers) =
                (selected.family, selected.store, selected.qualifiers);
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
            let view = selected.view;
            let iter = MergingIter::new(store.sources(&view, &filter)?);
            cursors.push(FamilyCursor {
                family: family.clone(),
                iter,
                matcher: RowMatcher::new(params),
                _view: view,
            });
        }
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

/// Refuses a Get no read could answer.
pub(super) fn validate_get(get: &Get) -> Result<()> {
    validate_read(get.max_versions, &get.time_range)
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

/// A store a read selected, with the view it reads.
pub(super) struct SelectedView<'a> {
    family: &'a Bytes,
    pub store: &'a Arc<Store>,
    qualifiers: Option<&'a BTreeSet<Bytes>>,
    pub view: Arc<StoreView>,
}

/// The moment between a read's views and its read point, where a flush
/// or a compaction may land.
#[cfg(test)]
pub(crate) const BETWEEN_VIEWS_AND_READ_POINT: &str = "between_views_and_read_point";
