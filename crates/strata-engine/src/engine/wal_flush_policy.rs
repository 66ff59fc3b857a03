//! The flush policy that keeps the WAL bounded. A region written rarely (the server's
//! catalog, a quiet table) keeps its oldest edit in its memstore for ever, since it never
//! reaches the flush size; that edit pins its segment and every later one, so the WAL, and
//! the replay after a crash, would grow without bound. Like HBase's
//! `hbase.regionserver.maxlogs`: once the WAL has more than [`MAX_WAL_SEGMENTS`] segments,
//! each flush asks for a flush of the region holding the oldest unflushed edit, which frees
//! the oldest segments step by step. With WAL groups the bound is per group (and per
//! leftover log), among the regions that log holds.

use std::sync::Arc;

use crate::region::Region;

/// Segments the WAL may keep before the oldest pinning region is flushed.
pub const MAX_WAL_SEGMENTS: u64 = 32;

/// The region to flush, among `regions`, when the WAL holds `segments` segments: the one
/// with the oldest unflushed edit once there are too many, else none.
pub fn region_to_flush(segments: u64, regions: &[Arc<Region>]) -> Option<u64> {
    if segments <= MAX_WAL_SEGMENTS {
        return None;
    }
    regions
        .iter()
        .filter_map(|r| r.min_unflushed_seq().map(|seq| (seq, r.id())))
        .min()
        .map(|(_, id)| id)
}
