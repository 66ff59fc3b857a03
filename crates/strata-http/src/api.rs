//! `/api/v1/...`: everything the status pages show, as JSON. The pages render these same
//! reports, so the two never disagree.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use strata_engine::stats::{BackgroundStats, MemoryStats};
use strata_engine::stats::{CacheStats, RowCacheStats, TierStats};
use strata_engine::stats::{WalGroupStats, WalStats};
use strata_server::metrics::{Operation, SlowRequest};
use strata_server::TableName;

use crate::charts::ChartSample;
use crate::state::ConfigEntry;
use crate::volumes::{with_space, VolumeSpace};
use crate::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/server", get(|s: State<AppState>| json(server(&s))))
        .route(
            "/api/v1/tables",
            get(|s: State<AppState>| json(s.service.admin().table_status())),
        )
        .route("/api/v1/tables/{name}", get(one_table))
        .route("/api/v1/cache", get(|s: State<AppState>| json(cache(&s))))
        .route("/api/v1/wal", get(|s: State<AppState>| json(wal(&s))))
        .route(
            "/api/v1/background",
            get(|s: State<AppState>| json(background(&s))),
        )
        .route("/api/v1/slow", get(|s: State<AppState>| json(slow(&s))))
        .route(
            "/api/v1/requests",
            get(|s: State<AppState>| json(requests(&s))),
        )
        .route("/api/v1/charts", get(|s: State<AppState>| json(charts(&s))))
        .route(
            "/api/v1/snapshots",
            get(|s: State<AppState>| json(snapshots(&s))),
        )
}

/// One snapshot in `/api/v1/snapshots`.
#[derive(Debug, Serialize)]
pub struct SnapshotReport {
    pub name: String,
    pub table: String,
    pub created_at_ms: i64,
    pub regions: usize,
    pub files: usize,
    pub bytes: u64,
}

/// `/api/v1/snapshots`: every snapshot, by name (none in cluster mode, which has none).
pub fn snapshots(state: &AppState) -> Vec<SnapshotReport> {
    match state.service.admin().list_snapshots() {
        Ok(list) => list
            .into_iter()
            .map(|s| SnapshotReport {
                name: s.name,
                table: s.table.to_string(),
                created_at_ms: s.created_at_ms,
                regions: s.regions,
                files: s.files,
                bytes: s.bytes,
            })
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "cannot list snapshots");
            Vec::new()
        }
    }
}

async fn json<T: Serialize>(value: T) -> Json<T> {
    Json(value)
}

async fn one_table(State(state): State<AppState>, Path(name): Path<String>) -> Response {
    match TableName::parse(&name)
        .ok()
        .and_then(|t| state.service.admin().one_table_status(&t))
    {
        Some(status) => Json(status).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(serde_json::json!({"error": format!("no table {name}")})),
        )
            .into_response(),
    }
}

/// `/api/v1/server`.
#[derive(Debug, Serialize)]
pub struct ServerReport {
    pub version: String,
    pub uptime_seconds: u64,
    pub memory: MemoryStats,
    /// Data blocks and the open files' index and bloom memory (charged to the cache).
    pub block_cache_bytes: u64,
    pub block_cache_capacity_bytes: u64,
    pub tables: usize,
    pub regions: usize,
    pub open_scanners: usize,
    pub volumes: Vec<VolumeSpace>,
    pub config: Vec<ConfigEntry>,
}

pub fn server(state: &AppState) -> ServerReport {
    let stats = state.service.engine().stats();
    let tables = state.service.admin().table_status();
    ServerReport {
        version: state.http.version.clone(),
        uptime_seconds: state.http.uptime().as_secs(),
        memory: stats.memory,
        block_cache_bytes: stats.cache.size_bytes + stats.cache.index_bloom_bytes,
        block_cache_capacity_bytes: stats.cache.capacity_bytes,
        regions: tables.iter().map(|t| t.regions.len()).sum(),
        tables: tables.len(),
        open_scanners: state.service.scanners().open_scanner_count(),
        volumes: with_space(stats.volumes),
        config: state.http.config.clone(),
    }
}

/// `/api/v1/cache`.
#[derive(Debug, Serialize)]
pub struct CacheReport {
    #[serde(flatten)]
    pub totals: CacheStats,
    /// Hits over lookups, 0..1 (0 before any lookup).
    pub hit_ratio: f64,
    pub tiers: Vec<TierStats>,
    /// The row cache, the level above the block cache for ROW_CACHE families.
    pub row_cache: RowCacheReport,
}

/// The row cache's part of `/api/v1/cache`.
#[derive(Debug, Serialize)]
pub struct RowCacheReport {
    #[serde(flatten)]
    pub stats: RowCacheStats,
    /// Hits over lookups, 0..1 (0 before any lookup).
    pub hit_ratio: f64,
}

/// `hits / (hits + misses)`, 0 before any lookup.
fn hit_ratio(hits: u64, misses: u64) -> f64 {
    match hits + misses {
        0 => 0.0,
        lookups => hits as f64 / lookups as f64,
    }
}

pub fn cache(state: &AppState) -> CacheReport {
    let engine = state.service.engine();
    let totals = engine.cache_stats();
    let rows = engine.row_cache_stats();
    CacheReport {
        hit_ratio: hit_ratio(totals.hits, totals.misses),
        totals,
        tiers: engine.cache_tier_stats(),
        row_cache: RowCacheReport {
            hit_ratio: hit_ratio(rows.hits, rows.misses),
            stats: rows,
        },
    }
}

/// `/api/v1/wal`.
#[derive(Debug, Serialize)]
pub struct WalReport {
    #[serde(flatten)]
    pub stats: WalStats,
    /// Sync latency percentiles (upper bounds of log2 buckets), microseconds.
    pub sync_p50_micros: u64,
    pub sync_p95_micros: u64,
    pub sync_p99_micros: u64,
    /// Each WAL group (one entry without groups), then any leftover directory of an
    /// earlier group count; the fields above are their sum.
    pub groups: Vec<WalGroupReport>,
}

/// One WAL group in `/api/v1/wal`.
#[derive(Debug, Serialize)]
pub struct WalGroupReport {
    #[serde(flatten)]
    pub group: WalGroupStats,
    pub sync_p99_micros: u64,
}

pub fn wal(state: &AppState) -> WalReport {
    let engine = state.service.engine();
    let stats = engine.wal_stats();
    let q = |q| log2_quantile(&stats.sync_latency_buckets, q);
    let groups = engine
        .wal_group_stats()
        .into_iter()
        .map(|group| WalGroupReport {
            sync_p99_micros: log2_quantile(&group.stats.sync_latency_buckets, 0.99),
            group,
        })
        .collect();
    WalReport {
        sync_p50_micros: q(0.5),
        sync_p95_micros: q(0.95),
        sync_p99_micros: q(0.99),
        stats,
        groups,
    }
}

/// Quantile of a histogram whose bucket `i` counts values below `2^i` µs.
pub fn log2_quantile(buckets: &[u64], q: f64) -> u64 {
    let total: u64 = buckets.iter().sum();
    if total == 0 {
        return 0;
    }
    let rank = ((total as f64) * q).ceil().max(1.0) as u64;
    let mut seen = 0;
    for (i, n) in buckets.iter().enumerate() {
        seen += n;
        if seen >= rank {
            return 1u64 << i;
        }
    }
    1u64 << buckets.len()
}

pub fn background(state: &AppState) -> BackgroundStats {
    state.service.engine().stats().background
}

/// `/api/v1/slow`.
#[derive(Debug, Serialize)]
pub struct SlowReport {
    pub threshold_ms: u64,
    /// Newest first.
    pub requests: Vec<SlowRequest>,
}

pub fn slow(state: &AppState) -> SlowReport {
    let metrics = state.service.metrics();
    let mut requests = metrics.slow_requests();
    requests.reverse();
    SlowReport {
        threshold_ms: metrics.slow_threshold().as_millis() as u64,
        requests,
    }
}

/// One operation's figures in `/api/v1/requests`.
#[derive(Debug, Serialize)]
pub struct OperationReport {
    pub operation: Operation,
    pub count: u64,
    pub mean_micros: u64,
    pub p50_micros: u64,
    pub p99_micros: u64,
}

/// `/api/v1/requests`.
#[derive(Debug, Serialize)]
pub struct RequestsReport {
    pub operations: Vec<OperationReport>,
    pub tables: Vec<TableRequests>,
}

/// One table's figures in `/api/v1/requests`.
#[derive(Debug, Serialize)]
pub struct TableRequests {
    pub table: String,
    pub operations: Vec<OperationReport>,
}

fn operation_reports(
    ops: Vec<(Operation, strata_server::metrics::LatencySnapshot)>,
) -> Vec<OperationReport> {
    ops.into_iter()
        .map(|(operation, h)| OperationReport {
            operation,
            count: h.count,
            mean_micros: h.sum_micros.checked_div(h.count).unwrap_or(0),
            p50_micros: h.quantile_micros(0.5),
            p99_micros: h.quantile_micros(0.99),
        })
        .collect()
}

pub fn requests(state: &AppState) -> RequestsReport {
    let metrics = state.service.metrics();
    RequestsReport {
        operations: operation_reports(metrics.totals()),
        tables: metrics
            .per_table()
            .into_iter()
            .map(|(table, ops)| TableRequests {
                table: table.to_string(),
                operations: operation_reports(ops),
            })
            .collect(),
    }
}

/// `/api/v1/charts`.
#[derive(Debug, Serialize)]
pub struct ChartsReport {
    pub interval_seconds: u64,
    /// Oldest first.
    pub samples: Vec<ChartSample>,
}

pub fn charts(state: &AppState) -> ChartsReport {
    ChartsReport {
        interval_seconds: 1,
        samples: state.http.charts.samples(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_quantiles() {
        assert_eq!(log2_quantile(&[0, 0, 0], 0.5), 0);
        assert_eq!(log2_quantile(&[0, 9, 0, 1], 0.5), 2);
        assert_eq!(log2_quantile(&[0, 9, 0, 1], 0.99), 8);
    }
}
