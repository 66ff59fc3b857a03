//! [`Member`]: a cluster server as the binary runs it: the [`ClusterServer`] (assembled
//! from the real dependencies built here: etcd, the object store from its URL, TCP peers,
//! the system clock, random ids), the internal RPC other servers forward requests to, and
//! the client APIs over its service.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use strata_cluster::peers::PeerConnector;
use strata_cluster::{ClusterConfig, ClusterDeps, ClusterServer, ClusterServerConfig, Endpoints};
use strata_coord::EtcdKv;
use strata_objstore::{open_store_on, RandomTokens, StoreOptions};
use strata_runtime::IoRuntime;
use strata_server::remote::{RegionPeer, ServerAddress, Unplaced};

use super::cluster::{blocking, cache_dir, NodeView};
use super::config::ServerConfig;
use super::hbase_cluster::ClusterTopology;
use super::hbase_rpc::HbaseSetup;
use super::{serve_db, Endpoint, Serving};

/// How long one etcd request may take before it counts as failed.
const ETCD_TIMEOUT: Duration = Duration::from_millis(500);

/// Worker threads of the I/O runtime etcd's client and the object store's share: one
/// keeps the connections driven, a second lets a slow store call overlap a lease renewal.
const IO_THREADS: usize = 2;

/// A server's part in the cluster.
pub(crate) struct Member {
    server: ClusterServer,
    peer: Endpoint,
    serving: Serving,
}

impl Member {
    /// Starts the cluster server on the real dependencies, then the internal RPC and the
    /// client APIs over its service.
    pub(crate) async fn join(
        config: &ServerConfig,
        cluster: ClusterConfig,
        endpoints: Endpoints,
        hbase_listener: Option<tokio::net::TcpListener>,
    ) -> Result<Self, String> {
        let description = format!("cluster {} (store {})", cluster.name, cluster.store);
        let cluster_name = cluster.name.clone();
        let advertised = endpoints.clone();
        let server_config = ClusterServerConfig {
            cluster,
            endpoints,
            service: config.service.clone(),
            cache_dir: cache_dir(config),
        };
        let server = blocking(move || {
            let deps = real_deps(&server_config.cluster).map_err(|e| e.to_string())?;
            ClusterServer::start(server_config, deps).map_err(|e| e.to_string())
        })
        .await?;
        let service = Arc::clone(server.service());
        let peer = match start_peer(config, &service).await {
            Ok(peer) => peer,
            Err(e) => return Err(stop_after(server, e).await),
        };
        let db = strata_db::Db::from_service(service);
        let topology =
            ClusterTopology::new(Arc::clone(server.ownership()), &cluster_name, &advertised);
        let hbase = HbaseSetup::Bound {
            listener: hbase_listener,
            topology: Arc::new(topology),
        };
        let serving = match serve_db(config, db, &description, hbase).await {
            Ok(serving) => serving,
            Err(e) => {
                peer.stop().await;
                return Err(stop_after(server, e).await);
            }
        };
        if let Some(http) = serving.http_state() {
            http.set_cluster(Arc::new(NodeView(
                Arc::downgrade(server.node()),
                Arc::clone(server.gc_stats()),
            )));
        }
        Ok(Member {
            server,
            peer,
            serving,
        })
    }

    /// The cluster server.
    pub(crate) fn server(&self) -> &ClusterServer {
        &self.server
    }

    /// Stops forwarding and the client APIs, then the cluster server (following, the
    /// master's work, the database, the lease).
    pub(crate) async fn stop(self) -> Result<(), String> {
        self.peer.stop().await;
        self.serving.stop().await?;
        // The server owns runtimes (etcd's client, the store's): stopped off this one.
        let server = self.server;
        blocking(move || server.stop().map_err(|e| e.to_string())).await
    }
}

/// Stops a server whose start did not complete, and returns the start's error.
async fn stop_after(server: ClusterServer, error: String) -> String {
    if let Err(e) = blocking(move || server.stop().map_err(|e| e.to_string())).await {
        tracing::warn!(error = %e, "cannot stop the cluster server cleanly");
    }
    error
}

/// etcd and the object store (on one I/O runtime), the system clock, random ids and
/// tokens, TCP peers.
// The binary is the composition root: it picks the real clock.
#[allow(clippy::disallowed_methods)]
fn real_deps(cluster: &ClusterConfig) -> strata_cluster::Result<ClusterDeps> {
    let io =
        IoRuntime::start("strata-io", IO_THREADS).map_err(|e| strata_cluster::Error::Start {
            what: "the I/O runtime",
            reason: e.to_string(),
        })?;
    let kv = EtcdKv::connect_on(&cluster.etcd, ETCD_TIMEOUT, io.clone()).map_err(|source| {
        strata_cluster::Error::Etcd {
            endpoints: cluster.etcd.clone(),
            source,
        }
    })?;
    let options = StoreOptions {
        added_latency: cluster.store_latency,
    };
    let store = open_store_on(&cluster.store, options, io).map_err(|source| {
        strata_cluster::Error::Store {
            url: cluster.store.clone(),
            source,
        }
    })?;
    Ok(ClusterDeps {
        kv: Arc::new(kv),
        store,
        clock: strata_runtime::clock::system(),
        ids: Arc::new(strata_cluster::RandomIds),
        tokens: Arc::new(RandomTokens),
        peers: connector(),
    })
}

/// Clients of other servers' internal RPC.
fn connector() -> PeerConnector {
    Arc::new(|endpoints: &Endpoints| -> Arc<dyn RegionPeer> {
        let address = endpoints.peer_address();
        match strata_peer::PeerClient::new(&address) {
            Ok(client) => Arc::new(client.serving_clients_at(ServerAddress {
                host: endpoints.host.clone(),
                thrift_port: endpoints.thrift,
                http_port: endpoints.http,
                grpc_port: endpoints.grpc,
            })),
            Err(e) => {
                tracing::warn!(address, error = %e, "cannot make a client of a peer");
                Arc::new(Unplaced { region: 0 })
            }
        }
    })
}

/// Serves the internal RPC on the peer port.
async fn start_peer(
    config: &ServerConfig,
    service: &Arc<strata_server::Service>,
) -> Result<Endpoint, String> {
    let addr = SocketAddr::new(config.listen, config.cluster.peer_port());
    let service = Arc::clone(service);
    Endpoint::start("peer", addr, move |listener, shutdown| {
        strata_peer::serve(service, listener, shutdown)
    })
    .await
}
