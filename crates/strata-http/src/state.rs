//! State of the HTTP endpoints that the service does not hold: start time, version, the
//! effective configuration, readiness and the chart samples.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use strata_runtime::clock::Clock;

use crate::charts::Charts;

/// One configuration setting as the status page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigEntry {
    pub key: String,
    /// `"(hidden)"` for a secret.
    pub value: String,
}

impl ConfigEntry {
    /// A setting shown as is.
    pub fn new(key: impl Into<String>, value: impl ToString) -> Self {
        ConfigEntry {
            key: key.into(),
            value: value.to_string(),
        }
    }

    /// A setting whose value must never be shown (passwords, tokens, keys).
    pub fn secret(key: impl Into<String>) -> Self {
        ConfigEntry {
            key: key.into(),
            value: "(hidden)".into(),
        }
    }
}

/// Process-level facts the pages report.
pub struct HttpState {
    /// Reads the time for the uptime.
    clock: Arc<dyn Clock>,
    started: Instant,
    pub version: String,
    pub config: Vec<ConfigEntry>,
    pub charts: Charts,
    ready: AtomicBool,
    /// Cluster mode's view of the cluster (`/ui/cluster`); unset standalone.
    cluster: std::sync::OnceLock<Arc<dyn crate::cluster::ClusterView>>,
}

impl HttpState {
    /// State for a server that is ready (its service is open and its catalog loaded),
    /// started now by `clock`.
    pub fn new(
        version: impl Into<String>,
        config: Vec<ConfigEntry>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        HttpState {
            started: clock.now(),
            clock,
            version: version.into(),
            config,
            charts: Charts::default(),
            ready: AtomicBool::new(true),
            cluster: std::sync::OnceLock::new(),
        }
    }

    /// How long ago the endpoints started.
    pub fn uptime(&self) -> Duration {
        self.clock.elapsed(self.started)
    }

    /// Whether `/readyz` answers 200.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Installs cluster mode's view of the cluster (once; later calls are ignored).
    pub fn set_cluster(&self, view: Arc<dyn crate::cluster::ClusterView>) {
        let _ = self.cluster.set(view);
    }

    /// The cluster view, in cluster mode.
    pub fn cluster(&self) -> Option<Arc<dyn crate::cluster::ClusterView>> {
        self.cluster.get().cloned()
    }

    /// Set to false when shutting down, so load balancers stop sending requests.
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_runtime::clock::ManualClock;

    #[test]
    fn uptime_is_read_off_the_injected_clock() {
        let clock = Arc::new(ManualClock::new(0));
        let state = HttpState::new("1.0", Vec::new(), clock.clone());
        assert_eq!(state.uptime(), Duration::ZERO);
        clock.advance(90_000);
        assert_eq!(state.uptime(), Duration::from_secs(90));
    }
}
