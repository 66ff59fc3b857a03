//! [`Balancer`]: which region the master's balancer moves next, and its switch and pace
//! (HBase's `balancer` and `balance_switch`). It evens out the number of regions per live
//! server, one move at a time and at most one per [`BALANCE_INTERVAL`]: first off
//! decommissioned servers, then from the busiest server to the idlest when they differ by
//! two or more (hysteresis: a difference of one is left alone, or regions would bounce),
//! then for load (`balance_load.rs`). It only decides; `moves.rs` carries a move out.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::balance_load;
use crate::view::ClusterView;

/// The least time between two moves of the balancer.
pub const BALANCE_INTERVAL: Duration = Duration::from_secs(1);

/// The balancer's switch and pace, shared by the shell's commands and the master's rounds.
#[derive(Debug)]
pub struct Balancer {
    on: AtomicBool,
    last_move: Mutex<Option<Instant>>,
    /// The last move made for load, not count (`balance_load.rs`), and its region.
    last_load_move: Mutex<Option<Instant>>,
    last_load_region: Mutex<Option<u64>>,
}

impl Default for Balancer {
    fn default() -> Self {
        Balancer {
            on: AtomicBool::new(true),
            last_move: Mutex::new(None),
            last_load_move: Mutex::new(None),
            last_load_region: Mutex::new(None),
        }
    }
}

/// A move the balancer chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalancerMove {
    pub region: u64,
    pub to: String,
    /// Chosen for load, with counts already even (`from` is the busiest server by load).
    pub for_load: Option<String>,
}

impl Balancer {
    /// Turns the balancer on or off; answers the previous setting.
    pub fn switch(&self, on: bool) -> bool {
        self.on.swap(on, Ordering::AcqRel)
    }

    /// Whether it is on.
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::Acquire)
    }

    /// Whether a step is due at `now`: the balancer is on and its interval passed.
    pub fn due(&self, now: Instant) -> bool {
        self.on.load(Ordering::Acquire)
            && self
                .last_move
                .lock()
                .is_none_or(|at| now.saturating_duration_since(at) >= BALANCE_INTERVAL)
    }

    /// The next move for `load` (the catalog's regions per live server), with
    /// `decommissioned` servers emptied first; `rates` reads the regions' request rates
    /// (from etcd, so only when a decision needs them). Records the move as made at `now`.
    pub fn choose(
        &self,
        load: &HashMap<String, Vec<u64>>,
        decommissioned: &HashSet<String>,
        rates: &dyn Fn() -> HashMap<u64, u64>,
        now: Instant,
    ) -> Option<BalancerMove> {
        let (serving, out): (Vec<_>, Vec<_>) = load
            .iter()
            .partition(|(sid, _)| !decommissioned.contains(*sid));
        let (to, to_regions) = serving.iter().min_by_key(|(sid, r)| (r.len(), *sid))?;
        let from = match out.iter().find(|(_, r)| !r.is_empty()) {
            Some(leaving) => Some(*leaving),
            None => serving
                .iter()
                .max_by_key(|(sid, r)| (r.len(), *sid))
                .filter(|(_, r)| r.len() >= to_regions.len() + 2)
                .copied(),
        };
        let load_moved_recently = self
            .last_load_move
            .lock()
            .is_some_and(|at| now.saturating_duration_since(at) < balance_load::LOAD_SETTLE);
        if let Some((_, regions)) = from {
            let just_moved = load_moved_recently
                .then(|| *self.last_load_region.lock())
                .flatten();
            let region = balance_load::coolest(regions, &rates(), just_moved)?;
            *self.last_move.lock() = Some(now);
            return Some(BalancerMove {
                region,
                to: (*to).clone(),
                for_load: None,
            });
        }
        if load_moved_recently {
            return None;
        }
        let by_load = balance_load::serving(load, decommissioned);
        let chosen = balance_load::choose(&by_load, &rates())?;
        *self.last_move.lock() = Some(now);
        *self.last_load_move.lock() = Some(now);
        *self.last_load_region.lock() = Some(chosen.region);
        Some(BalancerMove {
            region: chosen.region,
            to: chosen.to,
            for_load: Some(chosen.from),
        })
    }
}

/// The regions of `regions` (the catalog's) served by each live server of `view`.
pub fn load(view: &ClusterView, regions: &[u64]) -> HashMap<String, Vec<u64>> {
    let mut load: HashMap<String, Vec<u64>> =
        view.live.keys().map(|s| (s.clone(), Vec::new())).collect();
    for id in regions {
        let owner = view.regions.get(id).and_then(|r| r.record.owner.as_deref());
        if let Some(served) = owner.and_then(|o| load.get_mut(o)) {
            served.push(*id);
        }
    }
    load
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // a fixed instant; nothing waits
mod tests {
    use super::*;

    fn servers(counts: &[(&str, &[u64])]) -> HashMap<String, Vec<u64>> {
        counts
            .iter()
            .map(|(sid, regions)| (sid.to_string(), regions.to_vec()))
            .collect()
    }

    #[test]
    fn moves_off_a_decommissioned_server_first_then_evens_counts_with_hysteresis() {
        let balancer = Balancer::default();
        let no_rates = || HashMap::new();
        let now = Instant::now();
        let load = servers(&[("a", &[1, 2, 3]), ("b", &[4]), ("c", &[5])]);
        let out: HashSet<String> = ["c".to_string()].into();
        let chosen = balancer.choose(&load, &out, &no_rates, now).unwrap();
        assert_eq!((chosen.region, chosen.to.as_str()), (5, "b"));
        assert!(!balancer.due(now), "one move per interval");
        let chosen = balancer
            .choose(&load, &HashSet::new(), &no_rates, now + BALANCE_INTERVAL)
            .unwrap();
        assert_eq!(chosen.to, "b", "from a (3) to the idlest");
        let even = servers(&[("a", &[1, 2]), ("b", &[3])]);
        assert_eq!(
            balancer.choose(&even, &HashSet::new(), &no_rates, now),
            None
        );
        assert!(balancer.switch(false), "it was on");
        assert!(!balancer.due(now + BALANCE_INTERVAL * 10), "switched off");
    }
}
