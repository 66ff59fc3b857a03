//! The block cache's second level in `/metrics` (only when one is configured: a server
//! without it shows no `strata_l2_cache_*` family, rather than zeros that look like a cold
//! cache).

use strata_engine::L2Stats;

use crate::exposition::Exposition;

type L2Value = fn(&L2Stats) -> u64;

/// Every second-level family: (name, kind, help, figure).
const FAMILIES: [(&str, &str, &str, L2Value); 12] = [
    (
        "strata_l2_cache_hits_total",
        "counter",
        "Second-level lookups (after an in-memory miss) that found a valid block.",
        |s| s.hits,
    ),
    (
        "strata_l2_cache_misses_total",
        "counter",
        "Second-level lookups that found nothing usable.",
        |s| s.misses,
    ),
    (
        "strata_l2_cache_demotions_total",
        "counter",
        "Blocks evicted from the in-memory level and queued for the second level.",
        |s| s.demotions,
    ),
    (
        "strata_l2_cache_promotions_total",
        "counter",
        "Blocks found in the second level and put back into the in-memory level.",
        |s| s.promotions,
    ),
    (
        "strata_l2_cache_writes_total",
        "counter",
        "Blocks written to the second level's file.",
        |s| s.writes,
    ),
    (
        "strata_l2_cache_evictions_total",
        "counter",
        "Second-level entries overwritten to make room.",
        |s| s.evictions,
    ),
    (
        "strata_l2_cache_rejected_total",
        "counter",
        "Blocks not written: write queue full, block too large, or a failed write.",
        |s| s.rejected,
    ),
    (
        "strata_l2_cache_corrupt_total",
        "counter",
        "Second-level entries that failed their CRC when read (dropped, never served).",
        |s| s.corrupt,
    ),
    (
        "strata_l2_cache_restored_entries",
        "gauge",
        "Entries kept from the previous clean shutdown when the cache opened.",
        |s| s.restored,
    ),
    (
        "strata_l2_cache_entries",
        "gauge",
        "Blocks held by the second level.",
        |s| s.entries,
    ),
    (
        "strata_l2_cache_bytes",
        "gauge",
        "Bytes of the second level's entries.",
        |s| s.size_bytes,
    ),
    (
        "strata_l2_cache_capacity_bytes",
        "gauge",
        "The second level's file size (l2_cache_mb).",
        |s| s.capacity_bytes,
    ),
];

/// Appends the second level's families, if there is one.
pub fn l2_cache(e: &mut Exposition, l2: Option<&L2Stats>) {
    let Some(stats) = l2 else { return };
    for (name, kind, help, value) in FAMILIES {
        e.single(name, kind, help, value(stats));
    }
}
