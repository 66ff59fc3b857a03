//! The simulated infrastructure and the server slots: one in-memory etcd (`MemKv`), one
//! in-memory object store, in-process peers, and N slots each running at most one
//! [`ClusterServer`] at a time (a restart is a new incarnation with a new id, as a new
//! process would be). Every server gets its own etcd handle and its own cut switch on the
//! store, so faults hit one server at a time.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use object_store::memory::InMemory;
use parking_lot::{Mutex, RwLock};
use strata_cluster::gc::GcConfig;
use strata_cluster::{
    ClusterConfig, ClusterDeps, ClusterServer, ClusterServerConfig, Endpoints, SeededIds,
};
use strata_coord::{CoordOptions, MemCoordinator, MemKv};
use strata_objstore::testing::CutStore;
use strata_objstore::{BlockingStore, SeededTokens};
use strata_runtime::clock::{self, Clock};
use strata_server::{Service, ServiceOptions};

use crate::peers::PeerNet;

/// The lease TTL of every simulated server (the configuration's minimum).
pub const LEASE_TTL: Duration = Duration::from_secs(1);

/// One incarnation of a server in a slot.
pub struct Running {
    pub slot: usize,
    /// The simulation's count of starts, unique across slots.
    pub number: u64,
    pub sid: String,
    pub service: Arc<Service>,
    server: Mutex<Option<ClusterServer>>,
    kv: MemKv,
    cut: Arc<CutStore>,
    address: String,
    /// When etcd and the peers were cut off from this server (a pause past the lease).
    pub paused_at: Mutex<Option<Instant>>,
}

impl Running {
    pub fn is_master(&self) -> bool {
        self.server.lock().as_ref().is_some_and(|s| s.is_master())
    }

    pub fn lease_lost(&self) -> bool {
        self.server.lock().as_ref().is_some_and(|s| s.lease_lost())
    }

    /// The regions this server believes it owns.
    pub fn owned(&self) -> Vec<u64> {
        self.server
            .lock()
            .as_ref()
            .map(|s| s.ownership().owned().into_iter().map(|(r, _)| r).collect())
            .unwrap_or_default()
    }
}

/// The whole simulated cluster.
pub struct World {
    pub clock: Arc<dyn Clock>,
    kv: MemKv,
    store: BlockingStore,
    pub net: Arc<PeerNet>,
    ids: Arc<SeededIds>,
    tokens: Arc<SeededTokens>,
    dir: tempfile::TempDir,
    slots: Vec<RwLock<Option<Arc<Running>>>>,
    starts: AtomicU64,
    /// What happened, for the report of a failing seed.
    pub log: Mutex<Vec<String>>,
    started: Instant,
}

impl World {
    pub fn new(seed: u64, servers: usize) -> World {
        let clock = clock::system();
        let store = BlockingStore::new(Arc::new(InMemory::new()), "memory://").unwrap();
        World {
            kv: MemKv::new(Arc::clone(&clock)),
            clock: Arc::clone(&clock),
            store,
            net: Arc::new(PeerNet::default()),
            ids: Arc::new(SeededIds::new(seed)),
            tokens: Arc::new(SeededTokens::new(seed ^ 0x5eed)),
            dir: tempfile::tempdir().unwrap(),
            slots: (0..servers).map(|_| RwLock::new(None)).collect(),
            starts: AtomicU64::new(0),
            log: Mutex::new(Vec::new()),
            started: clock.now(),
        }
    }

    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Milliseconds since the world was made.
    pub fn elapsed_ms(&self) -> u128 {
        self.clock.elapsed(self.started).as_millis()
    }

    pub fn note(&self, what: String) {
        let at = self.elapsed_ms();
        self.log.lock().push(format!("{at:>6} ms  {what}"));
    }

    /// The server running in `slot`, if any.
    pub fn running(&self, slot: usize) -> Option<Arc<Running>> {
        self.slots[slot].read().clone()
    }

    pub fn all_running(&self) -> Vec<Arc<Running>> {
        (0..self.slots()).filter_map(|s| self.running(s)).collect()
    }

    /// Expires leases as etcd's lessor does on its own (the twin does it on every call).
    pub fn tick_lessor(&self) {
        self.kv.expire_leases();
    }

    /// A coordinator of the checker's own, never cut off.
    pub fn observer(&self) -> MemCoordinator {
        MemCoordinator::new(
            self.kv.connect("checker"),
            Arc::clone(&self.clock),
            CoordOptions::new("sim"),
        )
        .unwrap()
    }

    /// Starts a new incarnation in `slot` (which must be empty).
    pub fn start(&self, slot: usize) -> Result<Arc<Running>, String> {
        let number = self.starts.fetch_add(1, Ordering::SeqCst) + 1;
        let host = format!("s{slot}");
        let endpoints = Endpoints {
            host: host.clone(),
            thrift: 0,
            grpc: 0,
            http: 0,
            peer: u16::try_from(number).map_err(|e| e.to_string())?,
            hbase: 0,
        };
        let address = endpoints.peer_address();
        let kv = self.kv.connect(&address);
        let cut = Arc::new(CutStore::new(Arc::clone(self.store.inner())));
        let store = self.store.with_inner(|_| Arc::clone(&cut) as _);
        let deps = ClusterDeps {
            kv: Arc::new(kv.clone()),
            store,
            clock: Arc::clone(&self.clock),
            ids: Arc::clone(&self.ids) as _,
            tokens: Arc::clone(&self.tokens) as _,
            peers: self.net.connector(address.clone()),
        };
        let config = ClusterServerConfig {
            cluster: cluster_config(&host),
            endpoints,
            service: service_options(self.dir.path().join(format!("{host}-{number}"))),
            cache_dir: self.dir.path().join(format!("{host}-{number}-cache")),
        };
        let server = ClusterServer::start(config, deps).map_err(|e| e.to_string())?;
        let service = Arc::clone(server.service());
        self.net.register(&address, &service);
        let running = Arc::new(Running {
            slot,
            number,
            sid: server.node().sid.clone(),
            service,
            server: Mutex::new(Some(server)),
            kv,
            cut,
            address,
            paused_at: Mutex::new(None),
        });
        *self.slots[slot].write() = Some(Arc::clone(&running));
        self.note(format!("start s{slot} (#{number}, sid {})", running.sid));
        Ok(running)
    }

    /// Crashes the server in `slot`: cut off from everything first, so nothing it still
    /// does lands, then its threads stop without a flush or a revoke.
    pub fn kill(&self, slot: usize, why: &str) {
        let Some(running) = self.slots[slot].write().take() else {
            return;
        };
        self.note(format!("kill s{slot} (#{}): {why}", running.number));
        running.kv.set_reachable(false);
        running.cut.cut();
        self.net.set_cut(&running.address, true);
        self.net.unregister(&running.address);
        let server = running.server.lock().take();
        if let Some(server) = server {
            server.abandon();
        }
    }

    /// Cuts `slot` off from etcd and from the other servers, but not from its clients or
    /// the store: its lease runs out while it still runs, and others take over.
    pub fn pause(&self, slot: usize) {
        if let Some(running) = self.running(slot) {
            self.note(format!("pause s{slot} (#{})", running.number));
            *running.paused_at.lock() = Some(self.clock.now());
            running.kv.set_reachable(false);
            self.net.set_cut(&running.address, true);
        }
    }

    /// Ends a pause; the server then finds its lease gone.
    pub fn resume(&self, slot: usize) {
        if let Some(running) = self.running(slot) {
            if running.paused_at.lock().is_some() {
                self.note(format!("resume s{slot} (#{})", running.number));
                running.kv.set_reachable(true);
                self.net.set_cut(&running.address, false);
            }
        }
    }

    /// A short cut from etcd only (inside the lease: nothing should change).
    pub fn etcd_blip(&self, slot: usize, on: bool) {
        if let Some(running) = self.running(slot) {
            self.note(format!(
                "etcd blip s{slot} {}",
                if on { "on" } else { "off" }
            ));
            running.kv.set_reachable(!on);
        }
    }

    /// A short cut from the store only.
    pub fn store_blip(&self, slot: usize, on: bool) {
        if let Some(running) = self.running(slot) {
            self.note(format!(
                "store blip s{slot} {}",
                if on { "on" } else { "off" }
            ));
            if on {
                running.cut.cut();
            } else {
                running.cut.heal();
            }
        }
    }

    /// Reaps servers that found their lease lost (the binary exits then).
    pub fn reap(&self) {
        for running in self.all_running() {
            if running.lease_lost() {
                self.kill(running.slot, "lease lost");
            }
        }
    }

    /// Heals every switch.
    pub fn heal_all(&self) {
        for running in self.all_running() {
            running.kv.set_reachable(true);
            running.cut.heal();
            if running.paused_at.lock().is_none() {
                self.net.set_cut(&running.address, false);
            }
        }
    }

    /// Stops every server cleanly, all at once (each stop waits for its threads).
    pub fn shutdown(&self) {
        let stopping: Vec<_> = (0..self.slots())
            .filter_map(|slot| self.slots[slot].write().take())
            .map(|running| {
                self.net.unregister(&running.address);
                let server = running.server.lock().take();
                strata_runtime::thread::spawn("sim-stop", move || {
                    if let Some(server) = server {
                        let _ = server.stop();
                    }
                })
                .unwrap()
            })
            .collect();
        for stop in stopping {
            let _ = stop.join();
        }
    }
}

fn cluster_config(host: &str) -> ClusterConfig {
    ClusterConfig {
        name: "sim".into(),
        etcd: "memory://etcd".into(),
        store: "memory://".into(),
        store_latency: Duration::ZERO,
        advertise: host.into(),
        lease_ttl: LEASE_TTL,
        // Collected while the simulation runs: a live object deleted shows up as lost data.
        gc: GcConfig {
            interval: Duration::from_millis(700),
            min_age: Duration::from_millis(2_500),
        },
    }
}

/// Small memory, small flushes (so manifests move under the faults), short waits.
fn service_options(dir: PathBuf) -> ServiceOptions {
    let mut options = ServiceOptions::new(dir);
    let engine = &mut options.engine;
    engine.memstore_flush_size = 64 * 1024;
    engine.memstore_limit = 8 << 20;
    engine.block_cache_bytes = 2 << 20;
    engine.row_cache_bytes = 0;
    engine.write_wait_timeout = Duration::from_secs(3);
    options
}
