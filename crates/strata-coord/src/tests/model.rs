//! A randomized run against a simple model: servers with leases that keep alive, lose
//! etcd, restart; a master that moves regions; owners that claim regions and commit
//! manifests at the epoch they believe in (sometimes stale). Every call's success is
//! predicted by the model, and after every step the store must equal the model. The
//! randomness is a seeded generator: a failing seed is a replayable regression.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_runtime::clock::Clock;

use super::*;

const TTL: Duration = Duration::from_secs(2);
const MARGIN: Duration = Duration::from_millis(200);
const REGIONS: u64 = 4;

struct ModelServer {
    server: Server,
    reachable: bool,
    /// When etcd drops the lease: last keepalive received + TTL.
    etcd_expiry: Instant,
    /// The server's own deadline: last keepalive sent + TTL − margin.
    deadline: Instant,
    /// The epochs this server believes it owns regions at (possibly stale).
    believed: HashMap<RegionId, Epoch>,
}

#[derive(Default, Debug, Clone, PartialEq)]
struct ModelRegion {
    owner: Option<String>,
    epoch: Epoch,
    claimed_by: Option<String>,
    manifest: Option<(u64, Epoch)>,
}

struct World {
    cluster: Cluster,
    master: Server,
    lead: Leadership,
    servers: Vec<ModelServer>,
    regions: HashMap<RegionId, ModelRegion>,
    next_manifest: u64,
    /// How often each predicted outcome happened, so the run proves it reached them all.
    outcomes: HashMap<&'static str, u64>,
}

impl World {
    fn new() -> Self {
        let cluster = Cluster::new();
        let master = Server::start(&cluster, "m");
        let lead = elect(&master);
        let mut regions = HashMap::new();
        for id in 1..=REGIONS {
            let record = RegionRecord::new("default:t", b"", b"");
            let epoch = master.coord.create_region(&lead, id, &record).unwrap();
            regions.insert(
                id,
                ModelRegion {
                    epoch,
                    ..ModelRegion::default()
                },
            );
        }
        let mut world = World {
            cluster,
            master,
            lead,
            servers: Vec::new(),
            regions,
            next_manifest: 1,
            outcomes: HashMap::new(),
        };
        for i in 0..3 {
            let server = world.start_server(i);
            world.servers.push(server);
        }
        world
    }

    fn now(&self) -> Instant {
        self.cluster.clock.now()
    }

    fn start_server(&self, i: usize) -> ModelServer {
        let now = self.now();
        ModelServer {
            server: Server::start(&self.cluster, &format!("s{i}")),
            reachable: true,
            etcd_expiry: now + TTL,
            deadline: now + TTL - MARGIN,
            believed: HashMap::new(),
        }
    }

    fn step(&mut self, rng: &mut SmallRng) {
        let i = rng.random_range(0..self.servers.len());
        let id = rng.random_range(1..=REGIONS);
        match rng.random_range(0..8) {
            0 => self.advance(rng.random_range(0..700)),
            1 => self.keep_alive(i),
            2 => {
                let s = &mut self.servers[i];
                s.reachable = !s.reachable;
                s.server.coord.kv().set_reachable(s.reachable);
            }
            3 => self.restart(i),
            4 => self.assign(id, rng.random_bool(0.8).then_some(i)),
            5 => self.learn(i, id),
            6 => self.owner_write(i, id, true),
            _ => self.owner_write(i, id, false),
        }
        self.check();
    }

    fn advance(&mut self, millis: i64) {
        self.cluster.advance(millis);
        self.master
            .coord
            .keep_alive(&self.master.server_lease())
            .unwrap();
        let now = self.now();
        for s in &self.servers {
            if s.etcd_expiry <= now {
                for region in self.regions.values_mut() {
                    if region.claimed_by.as_deref() == Some(s.server.sid.as_str()) {
                        region.claimed_by = None;
                    }
                }
            }
        }
    }

    fn keep_alive(&mut self, i: usize) {
        let now = self.now();
        let s = &mut self.servers[i];
        let result = s.server.coord.keep_alive(&s.server.lease);
        match (s.reachable, s.etcd_expiry > now) {
            (false, _) => assert!(matches!(result, Err(crate::Error::Unavailable { .. }))),
            (true, false) => assert!(result.unwrap_err().is_lease_expired()),
            (true, true) => {
                result.unwrap();
                s.etcd_expiry = now + TTL;
                s.deadline = now + TTL - MARGIN;
            }
        }
    }

    fn restart(&mut self, i: usize) {
        if self.servers[i].etcd_expiry > self.now() {
            return; // still registered: the id is taken
        }
        self.servers[i].server.coord.kv().set_reachable(true);
        self.servers[i] = self.start_server(i);
    }

    fn assign(&mut self, id: RegionId, to: Option<usize>) {
        let owner = to.map(|i| self.servers[i].server.sid.clone());
        let coord = &self.master.coord;
        let epoch = coord.region(id).unwrap().unwrap().epoch;
        let new_epoch = coord
            .assign_region(&self.lead, id, epoch, owner.as_deref())
            .unwrap();
        let region = self.regions.get_mut(&id).unwrap();
        assert_eq!(region.epoch, epoch);
        (region.owner, region.epoch, region.claimed_by) = (owner, new_epoch, None);
    }

    /// The server reads the directory, as it does when told to open a region.
    fn learn(&mut self, i: usize, id: RegionId) {
        let s = &mut self.servers[i];
        if !s.reachable {
            return;
        }
        let region = s.server.coord.region(id).unwrap().unwrap();
        if region.record.owner.as_deref() == Some(s.server.sid.as_str()) {
            s.believed.insert(id, region.epoch);
        }
    }

    fn owner_write(&mut self, i: usize, id: RegionId, claim: bool) {
        let now = self.now();
        let s = &self.servers[i];
        let Some(&epoch) = s.believed.get(&id) else {
            return;
        };
        let server = &s.server;
        let result = if claim {
            server
                .coord
                .claim_region(&server.lease, &server.sid, server.incarnation, id, epoch)
        } else {
            let manifest = self.next_manifest;
            server
                .coord
                .commit_manifest(&server.lease, id, epoch, "cf", manifest)
        };
        let region = self.regions.get_mut(&id).unwrap();
        let outcome = if now >= s.deadline {
            "lease expired"
        } else if !s.reachable {
            "unreachable"
        } else if epoch != region.epoch {
            "fenced"
        } else {
            "committed"
        };
        *self.outcomes.entry(outcome).or_default() += 1;
        if now >= s.deadline {
            assert!(result.unwrap_err().is_lease_expired());
        } else if !s.reachable {
            assert!(matches!(result, Err(crate::Error::Unavailable { .. })));
        } else if epoch != region.epoch {
            assert!(result.unwrap_err().is_fenced());
        } else {
            result.unwrap();
            if claim {
                region.claimed_by = Some(server.sid.clone());
            } else {
                region.manifest = Some((self.next_manifest, epoch));
                self.next_manifest += 1;
            }
        }
    }

    fn check(&self) {
        let coord = &self.master.coord;
        for (id, model) in &self.regions {
            let region = coord.region(*id).unwrap().unwrap();
            assert_eq!(
                (region.epoch, &region.record.owner),
                (model.epoch, &model.owner),
                "region {id}"
            );
            let owner = coord.owner(*id).unwrap().map(|o| o.sid);
            assert_eq!(owner, model.claimed_by, "owner of region {id}");
            let pointer = coord
                .manifest(*id, "cf")
                .unwrap()
                .map(|p| (p.manifest, p.epoch));
            assert_eq!(pointer, model.manifest, "manifest of region {id}");
        }
        let now = self.now();
        let mut live: Vec<String> = coord
            .live_servers()
            .unwrap()
            .into_iter()
            .map(|s| s.sid)
            .collect();
        live.retain(|sid| sid != "m");
        let expected: Vec<String> = self
            .servers
            .iter()
            .filter(|s| s.etcd_expiry > now)
            .map(|s| s.server.sid.clone())
            .collect();
        assert_eq!(live, expected);
        check_ownership(&self.cluster);
    }
}

impl Server {
    fn server_lease(&self) -> Arc<Lease> {
        self.lease.clone()
    }
}

#[test]
fn random_runs_match_the_model() {
    let mut outcomes: HashMap<&str, u64> = HashMap::new();
    for seed in 0..40u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut world = World::new();
        for _ in 0..400 {
            world.step(&mut rng);
        }
        for (outcome, count) in world.outcomes {
            *outcomes.entry(outcome).or_default() += count;
        }
    }
    for outcome in ["lease expired", "unreachable", "fenced", "committed"] {
        assert!(
            outcomes.get(outcome).copied().unwrap_or(0) > 20,
            "{outcomes:?}"
        );
    }
    if std::env::var_os("STRATA_COORD_MODEL_STATS").is_some() {
        eprintln!("model outcomes: {outcomes:?}");
    }
}
