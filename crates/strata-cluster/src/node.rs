//! [`ClusterNode`]: one server's membership of a cluster.
//!
//! Joining checks both pieces of infrastructure before anything else, so a bad setting is
//! one clear error at start: etcd must answer, and the object store must answer and pass
//! the create-if-absent probe (a store that cannot fence a zombie is refused). The server
//! then takes a fresh id, so its WAL stream has no history, registers under a lease and
//! keeps the lease alive on a thread of its own. Both stores, the clock and the ids come
//! from [`ClusterDeps`]: this file connects to nothing itself.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use strata_coord::{
    Campaign, CoordOptions, Incarnation, KeepAlive, Leadership, Lease, LeaseRenewal, MasterInfo,
    SharedCoordinator,
};
use strata_objstore::{
    probe_atomic_create, AckGate, BlockingStore, RetryPolicy, StreamId, TokenSource, WriterDeps,
};
use strata_runtime::clock::Clock;

use crate::config::{ClusterConfig, Endpoints};
use crate::deps::ClusterDeps;
use crate::error::{Error, Result};

/// The pause between campaigns that could not run (etcd unreachable, lease past its
/// deadline) or found the key free but lost the race.
const CAMPAIGN_RETRY: Duration = Duration::from_millis(100);

/// A server that joined a cluster.
pub struct ClusterNode {
    pub config: ClusterConfig,
    pub coord: Arc<SharedCoordinator>,
    pub store: BlockingStore,
    pub lease: Arc<Lease>,
    /// The server id: random per process, in decimal (`/servers/<sid>`).
    pub sid: String,
    pub server_id: u64,
    pub incarnation: Incarnation,
    pub endpoints: Endpoints,
    pub clock: Arc<dyn Clock>,
    /// The writer tokens of this server's WAL objects and of the fences it writes.
    pub tokens: Arc<dyn TokenSource>,
    keepalive: Mutex<Option<KeepAlive>>,
}

impl std::fmt::Debug for ClusterNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterNode")
            .field("sid", &self.sid)
            .field("incarnation", &self.incarnation)
            .field("cluster", &self.config.name)
            .finish_non_exhaustive()
    }
}

impl ClusterNode {
    /// Checks etcd and the store answer and the store can fence, and registers.
    pub fn join(
        config: ClusterConfig,
        endpoints: Endpoints,
        deps: &ClusterDeps,
    ) -> Result<Arc<ClusterNode>> {
        config.validate()?;
        let etcd_error = |source| Error::Etcd {
            endpoints: config.etcd.clone(),
            source,
        };
        let store_error = |source| Error::Store {
            url: config.store.clone(),
            source,
        };
        let clock = Arc::clone(&deps.clock);
        let mut options = CoordOptions::new(&config.name);
        options.ttl = config.lease_ttl;
        let coord = Arc::new(
            SharedCoordinator::new(Arc::clone(&deps.kv), Arc::clone(&clock), options)
                .map_err(etcd_error)?,
        );
        let store = deps.store.clone();
        probe_atomic_create(&store, deps.tokens.as_ref(), &RetryPolicy::default())
            .map_err(store_error)?;
        let server_id = deps.ids.next_id();
        let sid = server_id.to_string();
        let lease = coord.grant_lease().map_err(etcd_error)?;
        let incarnation = coord
            .register_server(&lease, &sid, &endpoints.encode())
            .map_err(etcd_error)?;
        let keepalive = KeepAlive::start(
            Arc::clone(&coord) as Arc<dyn LeaseRenewal>,
            Arc::clone(&lease),
            Arc::clone(&clock),
        )
        .map_err(etcd_error)?;
        tracing::info!(
            sid,
            incarnation,
            cluster = config.name,
            "joined the cluster"
        );
        Ok(Arc::new(ClusterNode {
            config,
            coord,
            store,
            lease,
            sid,
            server_id,
            incarnation: incarnation.max(1),
            endpoints,
            clock,
            tokens: Arc::clone(&deps.tokens),
            keepalive: Mutex::new(Some(keepalive)),
        }))
    }

    /// This server's WAL stream.
    pub fn stream(&self) -> StreamId {
        StreamId::new(self.server_id, self.incarnation_number())
    }

    fn incarnation_number(&self) -> u64 {
        u64::try_from(self.incarnation).unwrap_or(1)
    }

    /// What this server's WAL writers and fencers use: its tokens, its clock, the
    /// default retries.
    pub fn writer_deps(&self) -> WriterDeps {
        WriterDeps {
            tokens: Arc::clone(&self.tokens),
            clock: Arc::clone(&self.clock),
            retry: RetryPolicy::default(),
        }
    }

    /// The tag in the names of the SSTables this process writes.
    pub fn writer_tag(&self) -> String {
        format!("s{}i{}", self.server_id, self.incarnation)
    }

    /// The acknowledgement rule for the WAL: a stored batch is acknowledged only while
    /// the lease is valid by this server's own clock.
    pub fn ack_gate(&self) -> AckGate {
        let lease = Arc::clone(&self.lease);
        let clock = Arc::clone(&self.clock);
        Arc::new(move || lease.check(clock.now()).map_err(|e| e.to_string()))
    }

    /// The gate the service asks before every read and write: no strong read and no
    /// write is served past the lease deadline.
    pub fn serving_gate(&self) -> Arc<LeaseGate> {
        Arc::new(LeaseGate {
            lease: Arc::clone(&self.lease),
            clock: Arc::clone(&self.clock),
        })
    }

    /// `Ok` while the lease is valid now.
    pub fn check_lease(&self) -> Result<()> {
        self.lease
            .check(self.clock.now())
            .map_err(|source| Error::Etcd {
                endpoints: self.config.etcd.clone(),
                source,
            })
    }

    /// True once etcd no longer holds the lease (the keepalive loop ended).
    pub fn lease_lost(&self) -> bool {
        self.keepalive
            .lock()
            .as_ref()
            .is_none_or(|k| k.is_finished())
    }

    /// Campaigns until this server is master. `on_master` hears of each other master
    /// seen meanwhile (standbys forward clients to it). Fails once the lease is lost.
    pub fn wait_for_leadership(
        &self,
        on_master: &dyn Fn(Option<MasterInfo>),
    ) -> Result<Leadership> {
        let etcd_error = |source| Error::Etcd {
            endpoints: self.config.etcd.clone(),
            source,
        };
        loop {
            if self.lease_lost() {
                return Err(etcd_error(
                    self.lease.check(self.clock.now()).err().unwrap_or_else(|| {
                        strata_coord::Error::InvalidArgument("lease lost".into())
                    }),
                ));
            }
            let endpoints = self.endpoints.encode();
            match self.coord.campaign(&self.lease, &self.sid, &endpoints) {
                Ok(Campaign::Won(leadership)) => return Ok(leadership),
                Ok(Campaign::Lost(current)) => on_master(current),
                Err(e) => {
                    // Typically the lease is past its deadline while etcd is unreachable:
                    // wait for a keepalive (or for the loss of the lease) before retrying.
                    tracing::warn!(error = %e, "campaign failed; retrying");
                    self.clock.sleep(CAMPAIGN_RETRY);
                    continue;
                }
            }
            match self.coord.observe_master() {
                Ok((Some(current), watch)) => {
                    on_master(Some(current));
                    self.wait_for_change(&watch);
                }
                Ok((None, _)) => self.clock.sleep(CAMPAIGN_RETRY),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot watch the master key");
                    self.clock.sleep(CAMPAIGN_RETRY);
                }
            }
        }
    }

    /// Blocks until the master key changes (the master left or was replaced), waking
    /// every second only to notice a lost lease: a standby costs etcd nothing while the
    /// master is alive.
    fn wait_for_change(&self, watch: &strata_coord::kv::WatchReceiver) {
        while !self.lease_lost() {
            if watch.next_timeout(Duration::from_secs(1)).is_some() {
                return;
            }
        }
    }

    /// Stops renewing the lease without revoking it: it expires by itself, as a crashed
    /// process's would.
    pub fn stop_keepalive(&self) {
        if let Some(keepalive) = self.keepalive.lock().take() {
            let _ = keepalive.stop();
        }
    }

    /// Leaves the cluster: stops the keepalive and revokes the lease, so this server's
    /// keys (membership, ownership, election) vanish at once rather than at expiry.
    pub fn leave(&self) {
        self.stop_keepalive();
        if let Err(e) = self.coord.revoke(&self.lease) {
            tracing::warn!(error = %e, "could not revoke the lease; it expires by itself");
        }
    }
}

/// [`ClusterNode::serving_gate`]: the lease's own-clock deadline as the service's gate.
#[derive(Debug)]
pub struct LeaseGate {
    lease: Arc<Lease>,
    clock: Arc<dyn Clock>,
}

impl strata_server::registry::ServingGate for LeaseGate {
    fn check(&self) -> std::result::Result<(), String> {
        self.lease
            .check(self.clock.now())
            .map_err(|e| e.to_string())
    }
}
