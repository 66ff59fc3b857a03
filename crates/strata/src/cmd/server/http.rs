//! The HTTP port: status UI, JSON API, Prometheus metrics and health (strata-http); every
//! other path goes to HBase's REST API (strata-rest), mounted as the fallback.

use std::net::SocketAddr;
use std::sync::Arc;

use strata_http::{ConfigEntry, HttpState};
use strata_server::Service;

use super::config::ServerConfig;
use super::Endpoint;

/// A running HTTP endpoint and the state its readiness check reads.
pub struct HttpEndpoint {
    pub endpoint: Endpoint,
    pub state: Arc<HttpState>,
    sampler: tokio::task::JoinHandle<()>,
}

impl HttpEndpoint {
    /// Reports not-ready, then stops serving.
    pub async fn stop(self) {
        self.state.set_ready(false);
        self.sampler.abort();
        self.endpoint.stop().await;
    }
}

/// Binds the HTTP port and serves the operations endpoints on it.
pub async fn start_http(
    service: &Arc<Service>,
    config: &ServerConfig,
    addr: SocketAddr,
) -> Result<HttpEndpoint, String> {
    // The binary is the composition root: it picks the real clock and runtime.
    #[allow(clippy::disallowed_methods)]
    let state = Arc::new(HttpState::new(
        env!("CARGO_PKG_VERSION"),
        config_entries(config),
        strata_runtime::clock::system(),
    ));
    // The REST gateway answers every path the operations router leaves free (`/`, tables,
    // `/version`, ...). It is a fallback service, not a merged router: both routers have a
    // fallback of their own, which axum refuses to merge.
    let router = strata_http::router(Arc::clone(service), Arc::clone(&state)).fallback_service(
        strata_rest::router_with(Arc::clone(service), config.network.rest.options()),
    );
    let endpoint = match config.tls.as_ref().filter(|tls| tls.serves("http")) {
        None => {
            Endpoint::start("http", addr, |listener, shutdown| {
                strata_http::serve_listener(listener, router, shutdown)
            })
            .await?
        }
        Some(tls) => {
            let tls = super::tls::server_config(tls, &[b"http/1.1"])?;
            Endpoint::start("https", addr, |listener, shutdown| {
                let listener = strata_tls::TlsListener::new(listener, tls);
                strata_http::serve_tls_listener(listener, router, shutdown)
            })
            .await?
        }
    };
    let sampler = strata_http::spawn_sampler(service, Arc::clone(&state));
    Ok(HttpEndpoint {
        endpoint,
        state,
        sampler,
    })
}

/// The effective configuration as the status page shows it. Secrets (none exist yet) must
/// be added with `ConfigEntry::secret`, which never shows the value.
pub fn config_entries(c: &ServerConfig) -> Vec<ConfigEntry> {
    const MIB: u64 = 1 << 20;
    let e = &c.service.engine;
    let ms = |d: std::time::Duration| d.as_millis();
    let limits = super::limits::entries(&c.service.limits, &c.network)
        .into_iter()
        .map(|(key, value)| ConfigEntry::new(key, value));
    let security = super::security_warning(c).unwrap_or_else(|| match &c.tls {
        Some(tls) => format!(
            "TLS on {} (certificate {})",
            tls.listeners.join(", "),
            tls.files.cert.display()
        ),
        None => "loopback only, standalone".to_string(),
    });
    let mut entries = vec![
        ConfigEntry::new("security", security),
        ConfigEntry::new("data_dir", c.data_dir.display()),
        ConfigEntry::new("listen", c.listen),
        ConfigEntry::new("thrift_port", c.thrift_port),
        ConfigEntry::new("grpc_port", c.grpc_port),
        ConfigEntry::new("http_port", c.http_port),
        ConfigEntry::new("slow_request_ms", ms(c.slow_request)),
        ConfigEntry::new("log_level", &c.log_level),
        ConfigEntry::new("engine.block_cache_mb", e.block_cache_bytes / MIB),
        ConfigEntry::new(
            "engine.l2_cache_path",
            e.l2_cache
                .as_ref()
                .map_or(String::new(), |l2| l2.dir.display().to_string()),
        ),
        ConfigEntry::new(
            "engine.l2_cache_mb",
            e.l2_cache.as_ref().map_or(0, |l2| l2.capacity_bytes / MIB),
        ),
        ConfigEntry::new("engine.row_cache_mb", e.row_cache_bytes / MIB),
        ConfigEntry::new("engine.memstore_limit_mb", e.memstore_limit / MIB),
        ConfigEntry::new("engine.memstore_flush_mb", e.memstore_flush_size / MIB),
        ConfigEntry::new("engine.wal_segment_mb", e.wal.segment_size / MIB),
        ConfigEntry::new("engine.wal_async_flush_ms", ms(e.wal.async_flush_interval)),
        ConfigEntry::new(
            "engine.wal_groups",
            match e.wal.groups {
                strata_engine::WalGroupCount::Fixed(n) => n.to_string(),
                strata_engine::WalGroupCount::PerVolume => "per_volume".to_string(),
            },
        ),
        ConfigEntry::new(
            "engine.compaction_mb_per_sec",
            e.compaction_bytes_per_sec.map_or(0, |b| b / MIB),
        ),
        ConfigEntry::new("engine.blocking_store_files", e.blocking_store_files),
        ConfigEntry::new(
            "engine.memstore_block_multiplier",
            e.memstore_block_multiplier,
        ),
        ConfigEntry::new("engine.avoid_slow_volumes", e.avoid_slow_volumes),
        ConfigEntry::new("engine.lanes_per_storage_type", e.lanes_per_storage_type),
        ConfigEntry::new("engine.flush_threads", e.flush_threads),
        ConfigEntry::new(
            "engine.compaction_small_threads",
            e.compaction_small_threads,
        ),
        ConfigEntry::new(
            "engine.compaction_large_threads",
            e.compaction_large_threads,
        ),
        ConfigEntry::new(
            "engine.compaction_throttle_mb",
            e.compaction_throttle() / MIB,
        ),
        ConfigEntry::new("engine.write_wait_timeout_ms", ms(e.write_wait_timeout)),
        ConfigEntry::new("engine.scanner_lease_ms", ms(c.service.scanner_lease)),
        ConfigEntry::new("engine.auto_split", c.service.split.enabled),
        ConfigEntry::new(
            "engine.split_initial_mb",
            c.service.split.initial_size.map_or_else(
                || "2 x memstore_flush_mb".to_string(),
                |b| (b / MIB).to_string(),
            ),
        ),
        ConfigEntry::new(
            "engine.max_region_mb",
            c.service.split.max_region_size / MIB,
        ),
    ];
    entries.extend(limits);
    entries
}
