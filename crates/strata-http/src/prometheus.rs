//! `/metrics` in the Prometheus text exposition format (version 0.0.4).
//!
//! Hand-rolled rather than through the `metrics` or `prometheus` crates: nearly every figure
//! already lives in the engine's and service's own atomics (WAL, cache, background work,
//! request histograms), so a scrape only formats snapshots; a registry would mean a second
//! copy of each counter updated on the hot path, and process-global registries would mix the
//! figures of several services opened in one process (tests, embedding).

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use strata_server::metrics::{LatencySnapshot, Operation, LATENCY_BOUNDS_MICROS};

use crate::exposition::Exposition;
use crate::AppState;

/// The content type Prometheus expects.
pub const CONTENT_TYPE_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    ([(CONTENT_TYPE, CONTENT_TYPE_TEXT)], render(&state))
}

/// Reads one figure of a cache tier.
type TierValue = fn(&strata_engine::stats::TierStats) -> u64;

fn request_histogram(e: &mut Exposition, name: &str, labels: &[(&str, &str)], h: &LatencySnapshot) {
    e.histogram(
        name,
        labels,
        &LATENCY_BOUNDS_MICROS,
        &h.buckets,
        h.sum_micros,
    );
}

/// Reads one figure of a background lane.
type LaneValue = fn(&strata_engine::stats::LaneStats) -> u64;

/// Threads, waiting and running tasks of each background lane.
fn background_lanes(e: &mut Exposition, lanes: &[strata_engine::stats::LaneStats]) {
    let families: [(&str, &str, LaneValue); 3] = [
        (
            "strata_background_threads",
            "Background threads by lane (flush, small_compaction, large_compaction) and the storage type the lane's work writes to.",
            |l| l.threads,
        ),
        (
            "strata_background_queue_length",
            "Tasks waiting by lane.",
            |l| l.queued,
        ),
        ("strata_background_running", "Tasks running by lane.", |l| {
            l.running
        }),
    ];
    for (name, help, value) in families {
        e.family(name, "gauge", help);
        for lane in lanes {
            let labels = [("lane", lane.lane), ("storage_type", lane.storage_type)];
            e.sample(name, &labels, value(lane));
        }
    }
}

/// The whole exposition.
pub fn render(state: &AppState) -> String {
    let mut e = Exposition {
        out: String::with_capacity(16 * 1024),
    };
    requests(&mut e, state);
    engine(&mut e, state);
    e.single(
        "strata_open_scanners",
        "gauge",
        "Open server-side scanners.",
        state.service.scanners().open_scanner_count(),
    );
    e.family(
        "strata_open_connections",
        "gauge",
        "Open client connections by API (HTTP connections are not counted).",
    );
    for api in strata_server::connections::Api::ALL {
        e.sample(
            "strata_open_connections",
            &[("api", api.label())],
            state.service.connections().open(api),
        );
    }
    if let Some(cluster) = state.http.cluster() {
        for m in cluster.metrics() {
            e.single(m.name, m.kind, m.help, m.value);
        }
    }
    e.single(
        "strata_uptime_seconds",
        "gauge",
        "Seconds since the HTTP endpoints started.",
        state.http.uptime().as_secs(),
    );
    e.family(
        "strata_build_info",
        "gauge",
        "Always 1; the version is a label.",
    );
    e.sample("strata_build_info", &[("version", &state.http.version)], 1);
    e.out
}

fn requests(e: &mut Exposition, state: &AppState) {
    let metrics = state.service.metrics();
    let totals = metrics.totals();
    e.family(
        "strata_requests_total",
        "counter",
        "Requests by operation (every API, every table).",
    );
    for (op, h) in &totals {
        e.sample(
            "strata_requests_total",
            &[("operation", op.name())],
            h.count,
        );
    }
    e.family(
        "strata_request_duration_seconds",
        "histogram",
        "Request latency by operation.",
    );
    for (op, h) in &totals {
        request_histogram(
            e,
            "strata_request_duration_seconds",
            &[("operation", op.name())],
            h,
        );
    }
    let tables = metrics.per_table();
    e.family("strata_table_request_duration_seconds", "histogram", "Request latency by table and operation (scanner_next has no table and is only in strata_request_duration_seconds).");
    for (table, ops) in &tables {
        let table = table.to_string();
        for (op, h) in ops.iter().filter(|(op, _)| *op != Operation::ScannerNext) {
            request_histogram(
                e,
                "strata_table_request_duration_seconds",
                &[("table", &table), ("operation", op.name())],
                h,
            );
        }
    }
    let (splits, merges) = metrics.splits_and_merges();
    e.single(
        "strata_region_splits_total",
        "counter",
        "Region splits (manual and automatic).",
        splits,
    );
    e.single(
        "strata_region_merges_total",
        "counter",
        "Region merges.",
        merges,
    );
    e.single(
        "strata_slow_request_threshold_seconds",
        "gauge",
        "Requests at least this slow go to the slow-request log.",
        metrics.slow_threshold().as_secs_f64(),
    );
}

fn engine(e: &mut Exposition, state: &AppState) {
    let stats = state.service.engine().stats();
    let m = stats.memory;
    e.single(
        "strata_memstore_bytes",
        "gauge",
        "Bytes in all memstores.",
        m.memstore_bytes,
    );
    e.single(
        "strata_memstore_limit_bytes",
        "gauge",
        "Memstore bytes at which writers wait.",
        m.memstore_limit,
    );
    e.single(
        "strata_regions",
        "gauge",
        "Open regions (catalog included).",
        stats.regions.len(),
    );

    let b = stats.background.totals;
    e.single(
        "strata_flushes_total",
        "counter",
        "Store flushes.",
        b.flushes,
    );
    e.single(
        "strata_flush_seconds_total",
        "counter",
        "Time spent flushing.",
        b.flush_micros as f64 / 1e6,
    );
    e.single(
        "strata_flushed_bytes_total",
        "counter",
        "Bytes of SSTables written by flushes.",
        b.flush_bytes,
    );
    e.single(
        "strata_flush_queue_length",
        "gauge",
        "Region flushes waiting for a flush thread.",
        stats.background.queued_flushes,
    );
    e.single(
        "strata_compactions_total",
        "counter",
        "Store compactions (minor and major).",
        b.compactions,
    );
    e.single(
        "strata_compaction_seconds_total",
        "counter",
        "Time spent compacting.",
        b.compaction_micros as f64 / 1e6,
    );
    e.single(
        "strata_compaction_read_bytes_total",
        "counter",
        "Input file bytes of compactions.",
        b.compaction_bytes_in,
    );
    e.single(
        "strata_compaction_written_bytes_total",
        "counter",
        "Output file bytes of compactions.",
        b.compaction_bytes_out,
    );
    e.single(
        "strata_compaction_queue_length",
        "gauge",
        "Region compactions waiting for a compaction thread (both lanes).",
        stats.background.queued_compactions,
    );
    background_lanes(e, &stats.background.lanes);

    crate::wal_metrics::wal(e, &stats.wal, &state.service.engine().wal_group_stats());

    let volumes = crate::volumes::with_space(stats.volumes);
    e.family("strata_store_files", "gauge", "Live store files by volume.");
    for v in &volumes {
        e.sample(
            "strata_store_files",
            &[("volume", &v.volume.name)],
            v.volume.files,
        );
    }
    e.family(
        "strata_store_file_bytes",
        "gauge",
        "Bytes of live store files by volume.",
    );
    for v in &volumes {
        e.sample(
            "strata_store_file_bytes",
            &[("volume", &v.volume.name)],
            v.volume.bytes,
        );
    }
    e.family(
        "strata_volume_free_bytes",
        "gauge",
        "Free bytes on the volume's filesystem.",
    );
    for v in &volumes {
        if let Some(free) = v.free_bytes {
            e.sample(
                "strata_volume_free_bytes",
                &[("volume", &v.volume.name)],
                free,
            );
        }
    }
    e.family(
        "strata_volume_size_bytes",
        "gauge",
        "Size of the volume's filesystem.",
    );
    for v in &volumes {
        if let Some(total) = v.total_bytes {
            e.sample(
                "strata_volume_size_bytes",
                &[("volume", &v.volume.name)],
                total,
            );
        }
    }

    e.single(
        "strata_block_cache_index_bloom_bytes",
        "gauge",
        "Index and bloom memory of open store files, charged to the block cache.",
        stats.cache.index_bloom_bytes,
    );
    e.single(
        "strata_block_cache_configured_bytes",
        "gauge",
        "The block cache's configured size: both tiers and the index and bloom memory.",
        stats.cache.capacity_bytes,
    );
    e.single(
        "strata_block_cache_misses_total",
        "counter",
        "Block cache lookups that missed.",
        stats.cache.misses,
    );
    e.single(
        "strata_block_cache_inserts_total",
        "counter",
        "Blocks inserted into the block cache.",
        stats.cache.inserts,
    );
    let tier_family: [(&str, &str, &str, TierValue); 5] = [
        (
            "strata_block_cache_hits_total",
            "counter",
            "Block cache hits by tier.",
            |t| t.hits,
        ),
        (
            "strata_block_cache_evictions_total",
            "counter",
            "Blocks evicted by tier.",
            |t| t.evictions,
        ),
        (
            "strata_block_cache_bytes",
            "gauge",
            "Bytes held by tier.",
            |t| t.size_bytes,
        ),
        (
            "strata_block_cache_capacity_bytes",
            "gauge",
            "Current capacity by tier (its share of what index and bloom memory leaves).",
            |t| t.capacity_bytes,
        ),
        (
            "strata_block_cache_entries",
            "gauge",
            "Blocks held by tier.",
            |t| t.entries,
        ),
    ];
    for (name, kind, help, value) in tier_family {
        e.family(name, kind, help);
        for t in &stats.cache_tiers {
            e.sample(name, &[("tier", t.tier)], value(t));
        }
    }
    crate::l2_metrics::l2_cache(e, stats.cache.l2.as_ref());
    crate::row_cache_metrics::row_cache(e, &stats.row_cache);
}
