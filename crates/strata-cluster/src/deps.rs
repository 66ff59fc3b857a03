//! [`ClusterDeps`]: everything a cluster server reaches outside its own memory, handed in
//! by a composition root. The binary builds the real ones (etcd, the object store from its
//! URL, TCP peers, the system clock, ids from the OS's randomness); the simulation in
//! `tests/sim` hands in the in-memory twins (`MemKv`, a `memory://` store behind a fault
//! switch, peers that are services in the same process, seeded ids). Nothing below
//! `ClusterServer` opens a connection, reads the system clock or draws a random number
//! by itself.

use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use strata_coord::SharedKv;
use strata_objstore::{BlockingStore, TokenSource};
use strata_runtime::clock::Clock;

use crate::peers::PeerConnector;

/// Where server ids come from: a fresh id per process, so a WAL stream has no history.
pub trait ServerIds: Send + Sync + fmt::Debug {
    /// A new id in `1..2^48` (short in keys and logs; etcd refuses a registration whose
    /// id is taken, so a collision is an error at join, never a shared stream).
    fn next_id(&self) -> u64;
}

/// The largest id + 1.
const ID_LIMIT: u64 = 1 << 48;

/// Ids from the thread's OS-seeded generator (the binary's choice).
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

impl ServerIds for RandomIds {
    fn next_id(&self) -> u64 {
        // The composition root's randomness: the one place ids are drawn unseeded.
        #[allow(clippy::disallowed_methods)]
        rand::rng().random_range(1..ID_LIMIT)
    }
}

/// Ids from one seed, the same sequence every run (the simulation's choice).
#[derive(Debug)]
pub struct SeededIds(Mutex<rand::rngs::SmallRng>);

impl SeededIds {
    /// The sequence for `seed`.
    pub fn new(seed: u64) -> Self {
        SeededIds(Mutex::new(rand::rngs::SmallRng::seed_from_u64(seed)))
    }
}

impl ServerIds for SeededIds {
    fn next_id(&self) -> u64 {
        self.0.lock().random_range(1..ID_LIMIT)
    }
}

/// What one server is given.
#[derive(Clone)]
pub struct ClusterDeps {
    /// The coordination store: a client of etcd, or a handle of the in-memory twin.
    pub kv: SharedKv,
    /// The object store holding every durable byte.
    pub store: BlockingStore,
    /// Time: lease deadlines, rounds, retries.
    pub clock: Arc<dyn Clock>,
    /// This server's id.
    pub ids: Arc<dyn ServerIds>,
    /// The writer tokens of WAL objects and fences.
    pub tokens: Arc<dyn TokenSource>,
    /// Makes the client of another server's internal RPC.
    pub peers: PeerConnector,
}

impl fmt::Debug for ClusterDeps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterDeps")
            .field("kv", &self.kv)
            .field("store", &self.store)
            .field("ids", &self.ids)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_ids_repeat_for_a_seed_and_stay_in_range() {
        let (a, b, c) = (SeededIds::new(7), SeededIds::new(7), SeededIds::new(8));
        let first: Vec<u64> = (0..5).map(|_| a.next_id()).collect();
        let again: Vec<u64> = (0..5).map(|_| b.next_id()).collect();
        let other: Vec<u64> = (0..5).map(|_| c.next_id()).collect();
        assert_eq!(first, again);
        assert_ne!(first, other);
        assert!(first.iter().all(|id| (1..ID_LIMIT).contains(id)));
        assert!((1..ID_LIMIT).contains(&RandomIds.next_id()));
    }
}
