//! The faults of one run, drawn from its seed before it starts: what happens, and when
//! (milliseconds from the clients' start). The same seed gives the same schedule.

use std::fmt;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// One thing done to the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Crash the server in a slot (no flush, no revoke); a new one starts there `ms` later.
    Kill(usize, u64),
    /// Crash whichever server is master; a new one starts in its slot `ms` later.
    KillMaster(u64),
    /// Start a server in every empty slot.
    RestartAll,
    /// Cut a server off from etcd and its peers for `ms` (longer than the lease); it finds
    /// its lease lost afterwards, stops, and a new one starts in its slot.
    Pause(usize, u64),
    /// Cut a server off from etcd for `ms` (shorter than the lease).
    EtcdBlip(usize, u64),
    /// Cut a server off from the store for `ms`.
    StoreBlip(usize, u64),
    /// Lose the replies of the next `n` forwarded writes a server carries out.
    LoseReplies(usize, u32),
    /// Move a random region to a random other server.
    Move,
    /// Split a random region at a random row.
    Split,
    /// Merge two random adjacent regions.
    Merge,
}

/// Which faults a schedule draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Every fault: crashes, pauses past the lease, lost replies too.
    Full,
    /// No server is lost: moves, splits, merges, and etcd and store cuts inside the lease.
    /// What the test command runs until the open bugs the full profile finds are fixed
    /// (RFC 0013 lists them with their seeds).
    NoLoss,
}

/// A fault and when it happens.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub at_ms: u64,
    pub fault: Fault,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>5} ms {:?}", self.at_ms, self.fault)
    }
}

/// The schedule for `seed` over `span_ms`, on `servers` slots.
pub fn draw(seed: u64, servers: usize, span_ms: u64, profile: Profile) -> Vec<Step> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut steps = Vec::new();
    let mut at = rng.random_range(100..400);
    while at < span_ms {
        let fault = match profile {
            Profile::Full => draw_fault(&mut rng, servers),
            Profile::NoLoss => draw_calm_fault(&mut rng, servers),
        };
        steps.push(Step { at_ms: at, fault });
        // Crashes and pauses leave room for the failover before the next fault.
        at += match fault {
            Fault::Kill(..) | Fault::KillMaster(_) | Fault::Pause(..) => {
                rng.random_range(600..1_500)
            }
            _ => rng.random_range(100..500),
        };
    }
    steps.push(Step {
        at_ms: span_ms,
        fault: Fault::RestartAll,
    });
    steps
}

fn draw_fault(rng: &mut SmallRng, servers: usize) -> Fault {
    let slot = rng.random_range(0..servers);
    let restart_after = rng.random_range(200..1_500);
    match rng.random_range(0..100) {
        0..15 => Fault::Kill(slot, restart_after),
        15..23 => Fault::KillMaster(restart_after),
        23..37 => Fault::Pause(slot, rng.random_range(1_500..2_500)),
        37..47 => Fault::EtcdBlip(slot, rng.random_range(50..400)),
        47..57 => Fault::StoreBlip(slot, rng.random_range(50..400)),
        57..67 => Fault::LoseReplies(slot, rng.random_range(1..4)),
        67..82 => Fault::Move,
        82..92 => Fault::Split,
        _ => Fault::Merge,
    }
}

fn draw_calm_fault(rng: &mut SmallRng, servers: usize) -> Fault {
    let slot = rng.random_range(0..servers);
    match rng.random_range(0..100) {
        0..15 => Fault::EtcdBlip(slot, rng.random_range(50..400)),
        15..30 => Fault::StoreBlip(slot, rng.random_range(50..400)),
        30..60 => Fault::Move,
        60..80 => Fault::Split,
        _ => Fault::Merge,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_schedule() {
        let draw = |seed| -> Vec<String> {
            super::draw(seed, 3, 5_000, Profile::Full)
                .iter()
                .map(|s| s.to_string())
                .collect()
        };
        let (a, b, c) = (draw(42), draw(42), draw(43));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
