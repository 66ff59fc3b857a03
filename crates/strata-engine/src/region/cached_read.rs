//! Point reads through the row cache (`cache/row_cache/`), and the write fences that keep
//! it from ever answering with what a write changed.

use std::sync::atomic::Ordering;

use bytes::Bytes;

use super::read::{validate_get, SelectedView};
use super::Region;
use crate::api::{Get, RowResult};
use crate::cache::row_cache::{Answer, RowKey, WriteFence};
use crate::cell::Cell;
use crate::error::Result;

impl Region {
    /// The row cache's key for `get` when the cache may answer it: the cache is on and every
    /// family the read selects has ROW_CACHE (a read of a family that does not exist goes
    /// the ordinary way, which refuses it).
    pub(super) fn row_cache_key(&self, get: &Get) -> Option<RowKey> {
        if !self.ctx.row_cache.is_enabled() {
            return None;
        }
        let all_cached = if get.columns.is_empty() {
            self.stores.values().all(|s| s.row_cache_settings().0)
        } else {
            get.columns.keys().all(|family| {
                self.stores
                    .get(family)
                    .is_some_and(|s| s.row_cache_settings().0)
            })
        };
        all_cached.then(|| RowKey {
            region: self.cache_id,
            row: get.row.clone(),
        })
    }

    /// A Get answered from the row cache, or read and then cached. The read takes its
    /// ticket before its snapshot, so what it caches is at least as new as the ticket; a
    /// write of the row that began since keeps it out (`fences.rs`).
    pub(super) fn get_cached(&self, get: &Get, key: RowKey) -> Result<Option<RowResult>> {
        validate_get(get)?;
        let cache = &self.ctx.row_cache;
        let ticket = cache.start_read(&key);
        // Before the snapshot, which reads the settings: see `set_family`.
        let epoch = self.families_epoch.load(Ordering::Acquire);
        let (views, read_point) = self.snapshot(&get.columns)?;
        let Some(ticket) = ticket else {
            // A write of the row's shard is in flight: the cache is bypassed.
            return self.get_from(get, &views, read_point);
        };
        let view_ids: Vec<u64> = views.iter().map(|v| v.view.id).collect();
        let now_ms = self.now_if_any_ttl(&views);
        if let Some(answer) = cache.lookup(&key, get, (epoch, &view_ids), now_ms) {
            self.requests.read();
            return Ok(answer);
        }
        let result = self.get_from(get, &views, read_point)?;
        if !cache.admits(&key) {
            return Ok(result); // its first miss: most rows read once are never read again
        }
        #[cfg(test)]
        crate::util::test_hook::run(BEFORE_ROW_CACHE_INSERT);
        let expires_at_ms = expiry(result.as_ref(), &views);
        let answer = Answer::new(get, (epoch, view_ids), expires_at_ms, result.as_ref());
        cache.insert(ticket, key, answer);
        Ok(result)
    }

    /// The clock's milliseconds when a selected family has a TTL (the clock is not free on
    /// every host), else `i64::MIN`.
    fn now_if_any_ttl(&self, views: &[SelectedView<'_>]) -> i64 {
        if views
            .iter()
            .any(|v| v.store.row_cache_settings().1.is_some())
        {
            self.ctx.clock.now_millis()
        } else {
            i64::MIN
        }
    }

    /// Fences the rows of a write's `cells` in the row cache (`None` when it is off).
    pub(super) fn fence_rows(&self, cells: &[Cell]) -> Option<WriteFence> {
        self.ctx
            .row_cache
            .fence_write(self.cache_id, cells.iter().map(|c| &c.row))
    }

    /// Drops this region's rows from the row cache (the region is closing).
    pub(crate) fn forget_cached_rows(&self) {
        self.ctx.row_cache.forget_region(self.cache_id);
    }
}

/// The first clock millisecond at which a cell of `result` has outlived its family's TTL,
/// or `i64::MAX`. A read includes a cell while `ts >= now - ttl`; time only ever takes
/// cells away (an expired version frees no room for an older one, which is older still), so
/// the answer holds until then.
fn expiry(result: Option<&RowResult>, views: &[SelectedView<'_>]) -> i64 {
    let ttl_of = |family: &Bytes| {
        views
            .iter()
            .find(|v| v.store.family_name() == family)
            .and_then(|v| v.store.row_cache_settings().1)
    };
    result
        .iter()
        .flat_map(|r| &r.cells)
        .filter_map(|c| {
            let ttl = ttl_of(&c.family)?;
            Some(c.timestamp.saturating_add(ttl).saturating_add(1))
        })
        .min()
        .unwrap_or(i64::MAX)
}

/// The moment between a cached read's read and its insert, where a write
/// of the row may land.
#[cfg(test)]
pub(crate) const BEFORE_ROW_CACHE_INSERT: &str = "before_row_cache_insert";
