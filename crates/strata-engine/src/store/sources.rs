//! Choosing which of a store's sources a read must look at. Files are skipped by key range,
//! by timestamp range, and (for point reads) by bloom filter.

use std::sync::Arc;

use crate::api::TimeRange;
use crate::error::Result;
use crate::iter::KvIter;
use crate::memstore::Memstore;
use crate::options::BloomType;

use super::file::StoreFile;
use super::view::StoreView;
use super::Store;

/// What a read touches, for skipping files.
#[derive(Debug, Clone)]
pub struct SourceFilter<'a> {
    /// A point read of one row (enables bloom checks).
    pub row: Option<&'a [u8]>,
    /// The one qualifier a point read asks for, if exactly one (enables ROWCOL blooms).
    pub qualifier: Option<&'a [u8]>,
    /// Escaped row bounds `[start, end)` of a scan; empty = unbounded.
    pub start_key: Vec<u8>,
    pub end_key: Vec<u8>,
    pub time_range: TimeRange,
    /// Whether data blocks read from disk enter the block cache (a scan's `cache_blocks`).
    pub fill_cache: bool,
}

impl Store {
    /// Iterators over the memstores and the files `filter` may need, from `view`.
    pub fn sources(&self, view: &StoreView, filter: &SourceFilter) -> Result<Vec<Box<dyn KvIter>>> {
        let mut out: Vec<Box<dyn KvIter>> = Vec::with_capacity(view.files.len() + 2);
        // A point read stops at its row's end, so its memstore cursors may stop there too
        // (they then copy no entries of later rows); scans keep unbounded cursors.
        let memstore_iter = |m: &Arc<Memstore>| -> Box<dyn KvIter> {
            match filter.row {
                Some(_) if !filter.end_key.is_empty() => Box::new(m.iter_below(&filter.end_key)),
                _ => Box::new(m.iter()),
            }
        };
        if !view.memstore.is_empty() {
            out.push(memstore_iter(&view.memstore));
        }
        if let Some(snapshot) = view.snapshot.as_ref().filter(|s| !s.is_empty()) {
            out.push(memstore_iter(snapshot));
        }
        for file in &view.files {
            if self.file_may_match(file, filter)? {
                out.push(file.iter(filter.fill_cache));
            }
        }
        Ok(out)
    }

    fn file_may_match(&self, file: &StoreFile, filter: &SourceFilter) -> Result<bool> {
        let entry = &file.entry;
        let meta = file.reader.meta();
        // Puts older than the range are never returned and markers there mask only them.
        if entry.max_ts < filter.time_range.min {
            return Ok(false);
        }
        // Newer cells matter only through markers, which mask older cells.
        if entry.min_ts >= filter.time_range.max && meta.delete_count == 0 {
            return Ok(false);
        }
        if !filter.end_key.is_empty() && entry.first_key.as_slice() >= filter.end_key.as_slice() {
            return Ok(false);
        }
        if entry.last_key.as_slice() < filter.start_key.as_slice() {
            return Ok(false);
        }
        if let Some(range) = &entry.range {
            if !reference_may_match(range, filter) {
                return Ok(false);
            }
        }
        match filter.row {
            Some(row) => self.bloom_may_match(file, row, filter.qualifier),
            None => Ok(true),
        }
    }

    fn bloom_may_match(
        &self,
        file: &StoreFile,
        row: &[u8],
        qualifier: Option<&[u8]>,
    ) -> Result<bool> {
        let reader = &file.reader;
        match (reader.meta().bloom_type, qualifier) {
            (BloomType::RowCol, Some(q)) => {
                // Family delete markers sit under the empty qualifier: check it too.
                let markers = reader.meta().family_delete_count > 0;
                Ok(reader.may_contain_column(row, q)?
                    || (markers && reader.may_contain_column(row, b"")?))
            }
            (BloomType::RowCol, None) => Ok(true),
            _ => reader.may_contain_row(row),
        }
    }
}

/// False when a read's key bounds lie entirely outside a reference's rows.
fn reference_may_match(range: &crate::manifest::RowRange, filter: &SourceFilter) -> bool {
    if let Some(row) = filter.row {
        return range.contains(row);
    }
    let below_end = filter.end_key.is_empty()
        || crate::key::row_prefix(&range.start).as_slice() < filter.end_key.as_slice();
    let above_start = range.end.is_empty()
        || filter.start_key.as_slice() < crate::key::row_prefix(&range.end).as_slice();
    below_end && above_start
}
