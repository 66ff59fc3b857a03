//! Closes scanners idle past the service's lease even when no client touches scanners any
//! more: the service itself only expires them when a scanner is opened or read, so a server
//! whose last client abandoned its scanners would otherwise keep their pinned files forever.

use std::sync::Arc;
use std::time::Duration;

use strata_server::Service;

use crate::ops::scans::Scanners;

/// How often idle scanners are looked for, at most (and a quarter of the lease at least).
const MAX_PERIOD: Duration = Duration::from_secs(5);

/// Runs until the task is aborted; `thrift` is the Thrift side's table of the same scanners.
pub(crate) async fn run(service: Arc<Service>, thrift: Arc<Scanners>) {
    let period = (service.scanner_lease() / 4).clamp(Duration::from_millis(10), MAX_PERIOD);
    let mut ticks = tokio::time::interval(period);
    loop {
        ticks.tick().await;
        let closed = service.expire_idle_scanners();
        thrift.forget_expired(&service);
        if closed > 0 {
            tracing::info!(closed, "closed scanners idle past their lease");
        }
    }
}
