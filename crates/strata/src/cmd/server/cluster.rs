//! `strata server --cluster NAME --etcd URLS --store URL`: the server in cluster mode.
//!
//! The server joins, serves the regions the master assigns it and clients on every API
//! (routing each request to the region's owner), and campaigns to be master. Elected, it
//! also writes the catalog, assigns and moves regions, and recovers dead servers' regions
//! (`docs/cluster.md`). If etcd drops its lease it exits: another server has taken over or
//! is about to, and nothing more may be acknowledged here.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use strata_cluster::gc::{GcConfig, GcStats};
use strata_cluster::{ClusterConfig, ClusterNode, Endpoints};

use super::config::ServerConfig;
use super::member::Member;
use super::ShutdownSignal;

/// `[cluster]` in the configuration file; each key has a flag of the same name.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterFileConfig {
    /// The cluster's name (`--cluster`).
    pub name: Option<String>,
    /// etcd endpoints, comma-separated (`--etcd`).
    pub etcd: Option<String>,
    /// Object store URL: `s3://bucket/prefix`, `file:///dir` or `hdfs://host:port/dir`
    /// (`--store`).
    pub store: Option<String>,
    /// Milliseconds added to every object-store call (`--store-latency-ms`; default 0): a
    /// simulated distant store, for benchmarks only.
    pub store_latency_ms: Option<u64>,
    /// The host other servers and clients reach this one at (`--advertise`; default: the
    /// listen address).
    pub advertise: Option<String>,
    /// Lease TTL in milliseconds (default 2000).
    pub lease_ttl_ms: Option<u64>,
    /// Port of the internal RPC other servers forward requests to (`--peer-port`; default
    /// [`DEFAULT_PEER_PORT`]).
    pub peer_port: Option<u16>,
    /// Seconds between the master's garbage collection passes (default 60; 0 turns the
    /// collector off).
    pub gc_interval_s: Option<u64>,
    /// Seconds an object must be old, and seen as garbage, before the collector deletes
    /// it (default 3600).
    pub gc_min_age_s: Option<u64>,
}

/// The internal RPC's port when none is configured: beside HBase's ports (16000 master,
/// 16010 its UI, 16020 and 16030 the region server's), none of which it may take, since a
/// server speaking HBase's native RPC serves 16020.
pub const DEFAULT_PEER_PORT: u16 = 16_040;

impl ClusterFileConfig {
    /// The internal RPC's port.
    pub fn peer_port(&self) -> u16 {
        self.peer_port.unwrap_or(DEFAULT_PEER_PORT)
    }

    /// The garbage collector's settings, defaults filled in.
    fn gc(&self) -> GcConfig {
        let defaults = GcConfig::default();
        GcConfig {
            interval: self
                .gc_interval_s
                .map_or(defaults.interval, Duration::from_secs),
            min_age: self
                .gc_min_age_s
                .map_or(defaults.min_age, Duration::from_secs),
        }
    }

    /// True when any cluster setting is given.
    pub fn is_cluster(&self) -> bool {
        self.name.is_some() || self.etcd.is_some() || self.store.is_some()
    }

    fn resolve(&self, config: &ServerConfig) -> Result<ClusterConfig, String> {
        super::wal_groups::refuse_in_cluster_mode(&config.service.engine)?;
        let cluster = ClusterConfig {
            name: self.name.clone().unwrap_or_default(),
            etcd: self.etcd.clone().unwrap_or_default(),
            store: self.store.clone().unwrap_or_default(),
            store_latency: Duration::from_millis(self.store_latency_ms.unwrap_or(0)),
            advertise: self
                .advertise
                .clone()
                .unwrap_or_else(|| config.listen.to_string()),
            lease_ttl: Duration::from_millis(self.lease_ttl_ms.unwrap_or(2_000)),
            gc: self.gc(),
        };
        cluster.validate().map_err(|e| e.to_string())?;
        Ok(cluster)
    }
}

fn endpoints(config: &ServerConfig, cluster: &ClusterConfig, hbase: u16) -> Endpoints {
    Endpoints {
        host: cluster.advertise.clone(),
        thrift: config.thrift_port,
        grpc: config.grpc_port,
        http: config.http_port,
        peer: config.cluster.peer_port(),
        hbase,
    }
}

pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| format!("cluster task failed: {e}"))?
}

/// Runs the server in cluster mode until SIGINT or SIGTERM, or until etcd drops its lease
/// (then it exits with status 3: its regions may already be someone else's).
pub async fn serve_cluster(
    config: ServerConfig,
    mut shutdown: ShutdownSignal,
) -> Result<(), String> {
    let cluster = config.cluster.resolve(&config)?;
    // The HBase port is bound first: its number goes into the membership record, which
    // clients are told (through hbase:meta) to reach this server at.
    let hbase_listener = super::hbase_rpc::bind_rpc(&config).await?;
    let hbase_port = match &hbase_listener {
        Some(listener) => listener
            .local_addr()
            .map_err(|e| format!("cannot listen for HBase RPC: {e}"))?
            .port(),
        None => 0,
    };
    let endpoints = endpoints(&config, &cluster, hbase_port);
    let name = cluster.name.clone();
    let member = Member::join(&config, cluster, endpoints, hbase_listener).await?;
    let sid = member.server().node().sid.clone();
    println!(
        "strata server joined cluster {name} as server {sid}; serving clients and its regions, standing by as master"
    );
    let mut leading = false;
    let mut ticks = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            _ = shutdown.wait() => break,
            _ = ticks.tick() => {}
        }
        let server = member.server();
        if server.lease_lost() {
            lease_lost(&sid);
        }
        if !leading && server.is_master() {
            leading = true;
            println!("strata server {sid} elected master");
            println!("strata server {sid} acting as master");
        }
    }
    tracing::info!("shutting down: closing connections, then flushing memstores");
    member.stop().await?;
    println!("strata server stopped");
    Ok(())
}

/// Exits: without its lease a server may already have been replaced, and its memory may
/// hold what it must not commit. Not flushing: each region's next owner replays its WAL.
fn lease_lost(sid: &str) -> ! {
    eprintln!("strata server {sid}: the cluster lease was lost; exiting");
    std::process::exit(3);
}

/// The status pages' view of the cluster, through this server's own etcd client. Weak,
/// so the pages never keep a node (and its runtimes) alive.
/// The master's garbage collection counters are added as `gc` (zeros on other servers).
pub(super) struct NodeView(
    pub(super) std::sync::Weak<ClusterNode>,
    pub(super) Arc<GcStats>,
);

impl strata_http::ClusterView for NodeView {
    fn status(&self) -> Result<serde_json::Value, String> {
        let node = self.0.upgrade().ok_or("this server left the cluster")?;
        let status = strata_cluster::ClusterStatus::from_coordinator(
            &node.coord,
            &node.config.etcd,
            &node.config.name,
        )
        .map_err(|e| e.to_string())?;
        let mut value = serde_json::to_value(status).map_err(|e| e.to_string())?;
        if let Some(fields) = value.as_object_mut() {
            let gc = serde_json::to_value(self.1.figures()).map_err(|e| e.to_string())?;
            fields.insert("gc".into(), gc);
        }
        Ok(value)
    }

    fn metrics(&self) -> Vec<strata_http::ClusterMetric> {
        let f = self.1.figures();
        let metric = |name, kind, help, value| strata_http::ClusterMetric {
            name,
            kind,
            help,
            value,
        };
        vec![
            metric(
                "strata_gc_passes_total",
                "counter",
                "Garbage collection passes this server ran as master.",
                f.strata_gc_passes_total,
            ),
            metric(
                "strata_gc_failed_passes_total",
                "counter",
                "Garbage collection passes that stopped on an error.",
                f.strata_gc_failed_passes_total,
            ),
            metric(
                "strata_gc_deleted_objects_total",
                "counter",
                "Objects the garbage collector deleted from the store.",
                f.strata_gc_deleted_objects_total,
            ),
            metric(
                "strata_gc_deleted_bytes_total",
                "counter",
                "Bytes of the objects the garbage collector deleted.",
                f.strata_gc_deleted_bytes_total,
            ),
            metric(
                "strata_gc_last_pass_duration_ms",
                "gauge",
                "How long the last garbage collection pass took.",
                f.strata_gc_last_pass_duration_ms,
            ),
            metric(
                "strata_peer_calls_on_async_workers_total",
                "counter",
                "Calls to other servers made from an async worker thread (expected to stay 0).",
                strata_peer::calls_on_async_workers(),
            ),
        ]
    }
}

/// The local cache directory of a cluster server: copies of the objects it wrote.
pub(super) fn cache_dir(config: &ServerConfig) -> PathBuf {
    config.data_dir.join("object-cache")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_latency_ms_is_read_and_defaults_to_zero() {
        let server = ServerConfig::from_file(Default::default()).unwrap();
        let keys = "name = \"c\"\netcd = \"http://127.0.0.1:2379\"\nstore = \"memory://\"\n";
        let plain: ClusterFileConfig = toml::from_str(keys).unwrap();
        assert_eq!(
            plain.resolve(&server).unwrap().store_latency,
            Duration::ZERO
        );
        let slow: ClusterFileConfig =
            toml::from_str(&format!("{keys}store_latency_ms = 20\n")).unwrap();
        let cluster = slow.resolve(&server).unwrap();
        assert_eq!(cluster.store_latency, Duration::from_millis(20));
    }

    #[test]
    fn the_peer_port_defaults_to_16040_and_leaves_hbase_its_ports() {
        let keys = "name = \"c\"\netcd = \"http://127.0.0.1:2379\"\nstore = \"memory://\"\n";
        let plain: ClusterFileConfig = toml::from_str(keys).unwrap();
        assert_eq!(plain.peer_port(), 16_040);
        assert!(![16_000, 16_010, 16_020, 16_030].contains(&plain.peer_port()));
        let set: ClusterFileConfig = toml::from_str(&format!("{keys}peer_port = 16020\n")).unwrap();
        assert_eq!(set.peer_port(), 16_020, "a configured port is kept");
    }
}
