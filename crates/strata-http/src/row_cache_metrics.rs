//! The row cache in `/metrics`. Shown also while it is off (`row_cache_mb = 0`): its
//! capacity then reads 0, which a dashboard can tell from a cold cache.

use strata_engine::stats::RowCacheStats;

use crate::exposition::Exposition;

type RowCacheValue = fn(&RowCacheStats) -> u64;

/// Every row-cache family: (name, kind, help, figure).
const FAMILIES: [(&str, &str, &str, RowCacheValue); 9] = [
    (
        "strata_row_cache_hits_total",
        "counter",
        "Point reads of ROW_CACHE families answered by the row cache.",
        |s| s.hits,
    ),
    (
        "strata_row_cache_misses_total",
        "counter",
        "Point reads of ROW_CACHE families the row cache could not answer.",
        |s| s.misses,
    ),
    (
        "strata_row_cache_inserts_total",
        "counter",
        "Answers added to the row cache.",
        |s| s.inserts,
    ),
    (
        "strata_row_cache_evictions_total",
        "counter",
        "Rows pushed out of the row cache to make room.",
        |s| s.evictions,
    ),
    (
        "strata_row_cache_invalidations_total",
        "counter",
        "Cached rows dropped because a write changed them.",
        |s| s.invalidations,
    ),
    (
        "strata_row_cache_stale_refused_total",
        "counter",
        "Answers not cached because a write of their row began while they were read.",
        |s| s.stale_refused,
    ),
    (
        "strata_row_cache_bytes",
        "gauge",
        "Bytes held by the row cache.",
        |s| s.size_bytes,
    ),
    (
        "strata_row_cache_entries",
        "gauge",
        "Rows held by the row cache.",
        |s| s.entries,
    ),
    (
        "strata_row_cache_capacity_bytes",
        "gauge",
        "The row cache's configured size (row_cache_mb; 0 is off).",
        |s| s.capacity_bytes,
    ),
];

/// Appends the row cache's families.
pub fn row_cache(e: &mut Exposition, stats: &RowCacheStats) {
    for (name, kind, help, value) in FAMILIES {
        e.single(name, kind, help, value(stats));
    }
}
