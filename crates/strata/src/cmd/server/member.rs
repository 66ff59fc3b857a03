//! [`Member`]: what every server of a cluster runs from joining to leaving: the database on
//! the object store with the catalog in etcd, serving the regions assigned to it; the
//! internal RPC other servers forward requests to; the follower loop that keeps it in step
//! with the cluster; its housekeeping; and the client APIs. Elected master, it also writes
//! the catalog and assigns regions, and carries out the administration other servers send.

use std::net::SocketAddr;
use std::sync::Arc;

use strata_cluster::catalog::EtcdCatalog;
use strata_cluster::follower::Follower;
use strata_cluster::gc::runner::start_on_master;
use strata_cluster::gc::{GcRunner, GcStats};
use strata_cluster::maintenance::Maintenance;
use strata_cluster::master_link::MasterPointer;
use strata_cluster::moves::{Balancer, ClusterMoves};
use strata_cluster::placement::PeerConnector;
use strata_cluster::takeover::cluster_engine_options;
use strata_cluster::{ClusterNode, Endpoints, Ownership};
use strata_coord::{EtcdKv, Leadership};
use strata_objstore::StreamProgress;
use strata_server::remote::{RegionPeer, ServerAddress, Unplaced};

use super::cluster::{blocking, cache_dir, start_maintenance, NodeView};
use super::config::ServerConfig;
use super::{open_db, serve_db, Endpoint, Serving};

/// A server's part in the cluster.
pub(crate) struct Member {
    node: Arc<ClusterNode>,
    ownership: Arc<Ownership>,
    master: Arc<MasterPointer>,
    catalog: Arc<EtcdCatalog<EtcdKv>>,
    peer: Endpoint,
    follower: Follower,
    serving: Serving,
    /// The master's moves and balancer once it leads, held for the service and the
    /// follower, which see them weakly.
    moves: Option<Arc<ClusterMoves>>,
    /// The garbage collector's counters (the status page shows them) and, once this
    /// server leads, its thread.
    gc_stats: Arc<GcStats>,
    gc: Option<GcRunner>,
}

impl Member {
    /// Opens the database (placing every region as the cluster's directory says), starts
    /// the internal RPC, the follower loop and the housekeeping, and serves clients.
    pub(crate) async fn join(
        config: &ServerConfig,
        node: Arc<ClusterNode>,
    ) -> Result<Self, String> {
        let ownership = Ownership::new(Arc::clone(&node), None, connector());
        let catalog = EtcdCatalog::new(Arc::clone(&node.coord));
        {
            let ownership = Arc::clone(&ownership);
            blocking(move || ownership.refresh_view().map_err(|e| e.to_string())).await?;
        }
        let master = MasterPointer::new(Arc::clone(&ownership));
        let progress = Arc::new(StreamProgress::default());
        let mut service = config.service.clone();
        service.engine = cluster_engine_options(
            &node,
            service.engine.clone(),
            Arc::clone(&ownership),
            Arc::clone(&progress),
            cache_dir(config),
        );
        service.region_registry = Some(Arc::clone(&ownership) as _);
        service.catalog = Some(Arc::clone(&catalog) as _);
        service.serving_gate = Some(node.serving_gate());
        service.master_link = Some(Arc::clone(&master) as _);
        service.advertised_host = Some(node.config.advertise.clone());
        let description = format!("cluster {} (store {})", node.config.name, node.config.store);
        let db = open_db(service, &description).await?;
        let peer = start_peer(config, db.service()).await?;
        let follower = Follower::start(Arc::clone(&ownership), Arc::downgrade(db.service()))
            .map_err(|e| format!("cannot start the cluster follower: {e}"))?;
        start_maintenance(Maintenance::new(Arc::clone(&node), progress), db.service());
        let serving = serve_db(config, db, &description).await?;
        let gc_stats = Arc::new(GcStats::default());
        if let Some(http) = serving.http_state() {
            http.set_cluster(Arc::new(NodeView(
                Arc::downgrade(&node),
                Arc::clone(&gc_stats),
            )));
        }
        Ok(Member {
            node,
            ownership,
            master,
            catalog,
            peer,
            follower,
            serving,
            moves: None,
            gc_stats,
            gc: None,
        })
    }

    /// Where this server believes the master is; the election keeps it current.
    pub(crate) fn master_pointer(&self) -> Arc<MasterPointer> {
        Arc::clone(&self.master)
    }

    /// Becomes master under `leadership`: writes the catalog, assigns and moves regions,
    /// and carries out the administration the other servers send it.
    pub(crate) fn lead(&mut self, leadership: Leadership) {
        self.ownership.lead(leadership.clone());
        self.catalog.lead(leadership);
        let service = self.serving.db.service();
        if let Err(e) = self.ownership.reserve_region_ids(service.directory()) {
            // A region created with a reused id is refused when it is claimed (its record
            // names another table or range), so this is not silent.
            tracing::error!(error = %e, "cannot read the region ids in use");
        }
        let moves = Arc::new(ClusterMoves::new(
            Arc::clone(&self.ownership),
            Arc::downgrade(service),
            Arc::new(Balancer::default()),
        ));
        self.ownership.set_moves(&moves);
        service.set_cluster_admin(Arc::clone(&moves) as _);
        self.moves = Some(moves);
        match start_on_master(&self.ownership, Arc::clone(&self.gc_stats)) {
            Ok(runner) => self.gc = runner,
            Err(e) => {
                tracing::error!(error = %e, "cannot start the garbage collector; objects accumulate")
            }
        }
        self.master.leading();
    }

    /// Stops forwarding and following, then the client APIs and the database.
    pub(crate) async fn stop(self) -> Result<(), String> {
        self.peer.stop().await;
        let (follower, gc) = (self.follower, self.gc);
        blocking(move || {
            drop(gc);
            drop(follower);
            Ok(())
        })
        .await?;
        self.serving.stop().await?;
        // The peers' clients and the node own runtimes: dropped off the async runtime.
        let rest = (self.ownership, self.master, self.moves, self.node);
        blocking(move || {
            drop(rest);
            Ok(())
        })
        .await
    }
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
