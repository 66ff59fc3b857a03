//! Keeps the WAL bounded. A region written rarely (the server's catalog, a quiet table)
//! keeps its oldest edit in its memstore for ever, since it never reaches the flush size;
//! that edit pins its segment and every later one, so the WAL, and the replay after a
//! crash, would grow without bound. Like HBase's `hbase.regionserver.maxlogs`: once the WAL
//! has more than [`MAX_WAL_SEGMENTS`] segments, each flush asks for a flush of the region
//! holding the oldest unflushed edit, which frees the oldest segments step by step.

use std::sync::Arc;

use super::shared::Shared;
use crate::region::Region;

/// Segments the WAL may keep before the oldest pinning region is flushed.
pub const MAX_WAL_SEGMENTS: u64 = 32;

impl Shared {
    /// Called after a flush, once flushed segments were deleted.
    pub(super) fn flush_region_pinning_the_wal(&self, regions: &[Arc<Region>]) {
        if self.wal.stats().segments <= MAX_WAL_SEGMENTS {
            return;
        }
        let oldest = regions
            .iter()
            .filter_map(|r| r.min_unflushed_seq().map(|seq| (seq, r.id())))
            .min();
        if let Some((_, id)) = oldest {
            self.request_flush(id);
        }
    }
}
