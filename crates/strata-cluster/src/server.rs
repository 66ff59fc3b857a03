//! [`ClusterServer`]: one server of a cluster, assembled from a configuration and the
//! [`ClusterDeps`] a composition root hands in. It joins (lease, registration), opens the
//! service on the object store with the catalog in etcd, keeps in step with the cluster
//! (the follower), does its housekeeping, and campaigns to be master; elected, it takes up
//! the master's role (`master_role.rs`). The network servers are not part of it: the
//! binary serves the client APIs and the internal RPC over [`ClusterServer::service`], and
//! the simulation calls the service directly.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use strata_coord::SharedKv;
use strata_objstore::StreamProgress;
use strata_server::{Service, ServiceOptions};

use crate::catalog::EtcdCatalog;
use crate::config::{ClusterConfig, Endpoints};
use crate::deps::ClusterDeps;
use crate::engine_options::cluster_engine_options;
use crate::error::{Error, Result};
use crate::follower::Follower;
use crate::gc::GcStats;
use crate::maintenance::Maintenance;
use crate::master::MasterRole;
use crate::master_link::MasterPointer;
use crate::node::ClusterNode;
use crate::ownership::Ownership;

/// How often the housekeeping runs.
const MAINTENANCE_EVERY: Duration = Duration::from_secs(1);

/// What a cluster server is configured with, besides its dependencies.
#[derive(Debug, Clone)]
pub struct ClusterServerConfig {
    pub cluster: ClusterConfig,
    /// Where this server's APIs listen, as others are told.
    pub endpoints: Endpoints,
    /// The service's options as for a standalone server; the engine is pointed at the
    /// object store here.
    pub service: ServiceOptions,
    /// Local copies of the objects this server writes.
    pub cache_dir: PathBuf,
}

/// What the campaign thread and the server share.
struct Shared {
    node: Arc<ClusterNode>,
    ownership: Arc<Ownership>,
    master: Arc<MasterPointer>,
    catalog: Arc<EtcdCatalog<SharedKv>>,
    service: Arc<Service>,
    gc_stats: Arc<GcStats>,
    /// The master's objects, only while this server leads.
    role: Mutex<Option<MasterRole>>,
    /// Set as the server stops: no role is taken up after it.
    stopping: AtomicBool,
}

/// A running cluster server.
pub struct ClusterServer {
    shared: Arc<Shared>,
    follower: Option<Follower>,
    maintenance: Option<Periodic>,
    campaign: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for ClusterServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterServer")
            .field("sid", &self.shared.node.sid)
            .field("master", &self.is_master())
            .finish_non_exhaustive()
    }
}

impl ClusterServer {
    /// Joins the cluster, opens the service (placing every region as the directory says),
    /// and starts following, housekeeping and campaigning. Blocking.
    pub fn start(config: ClusterServerConfig, deps: ClusterDeps) -> Result<ClusterServer> {
        let node = ClusterNode::join(config.cluster, config.endpoints, &deps)?;
        match Self::assemble(Arc::clone(&node), config.service, config.cache_dir, &deps) {
            Ok(server) => Ok(server),
            Err(e) => {
                node.leave();
                Err(e)
            }
        }
    }

    fn assemble(
        node: Arc<ClusterNode>,
        mut service: ServiceOptions,
        cache_dir: PathBuf,
        deps: &ClusterDeps,
    ) -> Result<ClusterServer> {
        let ownership = Ownership::new(Arc::clone(&node), Arc::clone(&deps.peers));
        ownership.refresh_view().map_err(|source| Error::Etcd {
            endpoints: node.config.etcd.clone(),
            source,
        })?;
        let catalog = EtcdCatalog::new(Arc::clone(&node.coord));
        let master = MasterPointer::new(Arc::clone(&ownership));
        let progress = Arc::new(StreamProgress::default());
        service.engine = cluster_engine_options(
            &node,
            service.engine.clone(),
            Arc::clone(&ownership) as _,
            Arc::clone(&progress),
            cache_dir,
        );
        service.region_registry = Some(Arc::clone(&ownership) as _);
        service.catalog = Some(Arc::clone(&catalog) as _);
        service.serving_gate = Some(node.serving_gate());
        service.master_link = Some(Arc::clone(&master) as _);
        service.advertised_host = Some(node.config.advertise.clone());
        let service = Service::open(service).map_err(|e| {
            Error::Service(format!(
                "cannot open the database (cluster {}, store {}): {e}",
                node.config.name, node.config.store
            ))
        })?;
        let thread_error = |what: &str, e: std::io::Error| {
            Error::Service(format!("cannot start the cluster {what}: {e}"))
        };
        let follower = Follower::start(Arc::clone(&ownership), Arc::downgrade(&service))
            .map_err(|e| thread_error("follower", e))?;
        let maintenance = start_maintenance(
            Maintenance::new(Arc::clone(&node), progress),
            &service,
            Arc::clone(&node.clock),
        )
        .map_err(|e| thread_error("housekeeping", e))?;
        let shared = Arc::new(Shared {
            node,
            ownership,
            master,
            catalog,
            service,
            gc_stats: Arc::new(GcStats::default()),
            role: Mutex::new(None),
            stopping: AtomicBool::new(false),
        });
        let campaign =
            start_campaign(Arc::clone(&shared)).map_err(|e| thread_error("campaign", e))?;
        Ok(ClusterServer {
            shared,
            follower: Some(follower),
            maintenance: Some(maintenance),
            campaign: Some(campaign),
        })
    }

    /// The service every API adapter (and the internal RPC) calls.
    pub fn service(&self) -> &Arc<Service> {
        &self.shared.service
    }

    /// This server's membership: its id, lease and coordinator.
    pub fn node(&self) -> &Arc<ClusterNode> {
        &self.shared.node
    }

    /// The regions this server owns and where the others are.
    pub fn ownership(&self) -> &Arc<Ownership> {
        &self.shared.ownership
    }

    /// The garbage collector's counters (zeros unless this server led).
    pub fn gc_stats(&self) -> &Arc<GcStats> {
        &self.shared.gc_stats
    }

    /// True once this server has taken up the master's role.
    pub fn is_master(&self) -> bool {
        self.shared.role.lock().is_some()
    }

    /// True once etcd no longer holds this server's lease: it must stop serving at once,
    /// since its regions may already be another's.
    pub fn lease_lost(&self) -> bool {
        self.shared.node.lease_lost()
    }

    /// Leaves cleanly: stops following and the master's work, flushes and closes the
    /// service (while the lease still lets it commit), then revokes the lease.
    pub fn stop(mut self) -> Result<()> {
        self.stop_background();
        let closed = self.shared.service.close();
        self.shared.node.leave();
        self.join_campaign();
        closed.map_err(|e| Error::Service(format!("cannot close the database: {e}")))
    }

    /// Stops as a crashed process would: no flush, no revocation (the lease runs out by
    /// itself), so what this server held is recovered by others. For tests, which cut its
    /// store and etcd first so that nothing it still does lands.
    pub fn abandon(mut self) {
        self.stop_background();
        self.shared.node.stop_keepalive();
        self.join_campaign();
    }

    fn stop_background(&mut self) {
        self.shared.stopping.store(true, Ordering::Release);
        drop(self.follower.take());
        drop(self.maintenance.take());
        drop(self.shared.role.lock().take());
    }

    fn join_campaign(&mut self) {
        if let Some(campaign) = self.campaign.take() {
            let _ = campaign.join();
        }
    }
}

impl Drop for ClusterServer {
    fn drop(&mut self) {
        if self.campaign.is_some() {
            self.stop_background();
            self.shared.node.leave();
            self.join_campaign();
        }
    }
}

/// Campaigns until elected (or the lease is lost), then takes up the master's role.
fn start_campaign(shared: Arc<Shared>) -> std::io::Result<std::thread::JoinHandle<()>> {
    strata_runtime::thread::spawn("cluster-campaign", move || {
        let master = Arc::clone(&shared.master);
        let won = shared
            .node
            .wait_for_leadership(&|info| master.heard(info.as_ref()));
        let leadership = match won {
            Ok(leadership) => leadership,
            Err(e) => {
                if !shared.stopping.load(Ordering::Acquire) {
                    tracing::warn!(error = %e, "campaign ended without leading");
                }
                return;
            }
        };
        let mut role = shared.role.lock();
        if shared.stopping.load(Ordering::Acquire) {
            return;
        }
        tracing::info!(sid = shared.node.sid, "elected master");
        *role = Some(MasterRole::take_up(
            &shared.ownership,
            &shared.catalog,
            &shared.service,
            leadership,
            Arc::clone(&shared.gc_stats),
        ));
        shared.master.leading();
        tracing::info!(sid = shared.node.sid, "acting as master");
    })
}

/// A thread running one piece of work every interval until dropped.
struct Periodic {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Periodic {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How often a waiting periodic thread looks at its stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

/// Runs the housekeeping every second while the service exists (held weakly).
fn start_maintenance(
    maintenance: Maintenance,
    service: &Arc<Service>,
    clock: Arc<dyn strata_runtime::clock::Clock>,
) -> std::io::Result<Periodic> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = Arc::clone(&stop);
    let service = Arc::downgrade(service);
    let thread = strata_runtime::thread::spawn("cluster-housekeeping", move || loop {
        let started = clock.now();
        while clock.elapsed(started) < MAINTENANCE_EVERY {
            if stopping.load(Ordering::Acquire) {
                return;
            }
            clock.sleep(STOP_POLL);
        }
        let Some(service) = service.upgrade() else {
            return;
        };
        maintenance.tick(service.directory().engine());
    })?;
    Ok(Periodic {
        stop,
        thread: Some(thread),
    })
}
