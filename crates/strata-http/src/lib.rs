//! Strata's operations endpoints over HTTP, served on `--http-port`:
//!
//! - `/ui` and below: server-rendered status pages (overview, tables, cache and WAL,
//!   background work, slow requests, the cluster) with live charts;
//! - `/api/v1/...`: everything the pages show, as JSON;
//! - `/metrics`: Prometheus text format;
//! - `/healthz` (alive) and `/readyz` (serving; 503 otherwise).
//!
//! Every other path is left to the router this one is merged with (the REST gateway).
//! docs/operations.md lists every endpoint and metric.

mod api;
mod charts;
mod cluster;
mod exposition;
mod format;
mod health;
mod l2_metrics;
mod prometheus;
mod row_cache_metrics;
mod state;
mod tls;
mod ui;
mod volumes;
mod wal_metrics;

use std::future::Future;
use std::sync::Arc;

use axum::routing::get;
use axum::Router;
use strata_server::Service;

pub use charts::{ChartSample, Charts, CHART_SAMPLES};
pub use cluster::{ClusterMetric, ClusterView};
pub use state::{ConfigEntry, HttpState};
pub use tls::serve_tls_listener;

/// What every handler gets.
#[derive(Clone)]
pub(crate) struct AppState {
    pub service: Arc<Service>,
    pub http: Arc<HttpState>,
}

/// The router of the operations endpoints. Merge another router in (or set it as the
/// fallback) for every other path.
pub fn router(service: Arc<Service>, http: Arc<HttpState>) -> Router {
    let state = AppState { service, http };
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(prometheus::metrics))
        .route("/api/v1/cluster", get(cluster::api))
        .route("/ui/cluster", get(cluster::page_handler))
        .merge(api::routes())
        .merge(ui::routes())
        .with_state(state)
}

/// Serves `router` on `listener` until `shutdown` completes.
pub async fn serve_listener(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    // Nagle off: small REST and JSON responses must not wait for the client's delayed ACK.
    let listener = listener.tap_io(|stream| {
        if let Err(e) = stream.set_nodelay(true) {
            tracing::warn!(error = %e, "cannot disable Nagle on an HTTP connection");
        }
    });
    // Each request carries its peer's address: the REST gateway charges a client's
    // scanners to it (`limits.max_scanners_per_client`).
    let service = router.into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, service)
        .with_graceful_shutdown(shutdown)
        .await
}

/// Samples request rate and latency once a second into `http`'s charts, until the service
/// is dropped. Call from inside a Tokio runtime.
// The charts' once-a-second sampler on the HTTP server's runtime (the adapter's own).
#[allow(clippy::disallowed_methods)]
pub fn spawn_sampler(service: &Arc<Service>, http: Arc<HttpState>) -> tokio::task::JoinHandle<()> {
    let service = Arc::downgrade(service);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(service) = service.upgrade() else {
                return;
            };
            let now_ms = service.engine().clock_millis();
            http.charts.sample(now_ms, service.metrics().all_requests());
        }
    })
}
