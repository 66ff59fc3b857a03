//! Assignments nobody took up. A region assigned to a live server is normally claimed by
//! it within milliseconds (the claim comes before the region opens, so even a long replay
//! claims early). One that stays unclaimed was released by its owner for a move or a
//! close whose master died before finishing (the owner deleted its claim and will not
//! open the region again at that epoch), or its owner cannot open it. Either way the
//! master assigns it again, at a new epoch, after [`UNCLAIMED_GRACE`]: a half-done move
//! is finished by the next master. What a new master finds unclaimed in its first pass (run
//! before it assigns anything itself) was left by its predecessor, so it waits only
//! [`INHERITED_GRACE`] for those: long enough for an owner to claim an assignment made just
//! before the old master died, short enough that requests waiting for the region (a client
//! times out after 10 s or so) get it.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_coord::{Epoch, Leadership, Owner, RegionState};

use crate::ownership::Ownership;

/// How long an assignment may stay unclaimed: longer than a move waits for its claim
/// (`moves.rs`), so the master's own moves are never undone.
pub const UNCLAIMED_GRACE: Duration = Duration::from_secs(12);

/// How long an assignment found unclaimed by a master as it takes over may stay so.
pub const INHERITED_GRACE: Duration = Duration::from_secs(2);

/// The master's note of assignments not claimed yet: since when, and how long they may
/// stay so.
#[derive(Debug)]
pub struct Unclaimed {
    /// Set as this server becomes master: its first pass finds only its predecessor's.
    inherited: AtomicBool,
    waiting: Mutex<HashMap<(u64, Epoch), (Instant, Duration)>>,
}

impl Default for Unclaimed {
    fn default() -> Self {
        Unclaimed {
            inherited: AtomicBool::new(true),
            waiting: Mutex::new(HashMap::new()),
        }
    }
}

impl Unclaimed {
    /// The master's pass (every round) over `regions`, the catalog's: assigns again each
    /// open region of a live owner that has not claimed it for [`UNCLAIMED_GRACE`].
    /// Returns how many it assigned.
    pub fn pass(&self, ownership: &Ownership, lead: &Leadership, regions: &[u64]) -> usize {
        let Ok(owners) = ownership.node.coord.owners() else {
            return 0;
        };
        let owners: HashMap<u64, Owner> = owners.into_iter().collect();
        let view = ownership.view.read().clone();
        let now = ownership.node.clock.now();
        let inherited = self.inherited.swap(false, Ordering::AcqRel);
        let first_grace = if inherited {
            INHERITED_GRACE
        } else {
            UNCLAIMED_GRACE
        };
        let mut waiting = self.waiting.lock();
        let mut still = HashSet::new();
        let mut assigned = 0;
        for id in regions {
            let Some(region) = view.regions.get(id) else {
                continue;
            };
            let owner = region.record.owner.as_deref();
            // Orphans (no live owner) are `assign_orphans`'s; closed regions stay closed.
            if region.record.state != RegionState::Open || view.live_owner(region).is_none() {
                continue;
            }
            let claimed = owners
                .get(id)
                .is_some_and(|o| o.epoch == region.epoch && Some(o.sid.as_str()) == owner);
            if claimed {
                continue;
            }
            let key = (*id, region.epoch);
            still.insert(key);
            let (since, grace) = *waiting.entry(key).or_insert((now, first_grace));
            if now.saturating_duration_since(since) < grace {
                continue;
            }
            let target = view.least_loaded();
            let Some(target) = target else {
                continue;
            };
            match ownership
                .node
                .coord
                .assign_region(lead, *id, region.epoch, Some(&target))
            {
                Ok(_) => {
                    tracing::warn!(region = id, was = ?owner, to = %target, "an assignment was not taken up; assigned again");
                    assigned += 1;
                }
                Err(e) => {
                    tracing::warn!(region = id, error = %e, "cannot assign an unclaimed region again")
                }
            }
        }
        waiting.retain(|key, _| still.contains(key));
        assigned
    }
}
