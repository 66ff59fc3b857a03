//! Measuring how busy each region of this server is, for the master's balancer
//! (`balance_load.rs`): every [`LOAD_INTERVAL`] the requests each open region served since
//! the last sample (the engine's read and write request counters) become a rate, published
//! as `/load/<sid>` only when it changed enough to matter, so a steady cluster writes
//! almost nothing to etcd.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_engine::Engine;

use crate::node::ClusterNode;

/// How often the rates are measured.
pub const LOAD_INTERVAL: Duration = Duration::from_secs(10);

/// A rate this close to the published one is not worth publishing again.
const SAME_WITHIN: u64 = 10;

/// The last sample and the last rates published.
#[derive(Debug, Default)]
pub struct LoadMeter {
    sample: Mutex<Option<(Instant, HashMap<u64, u64>)>>,
    published: Mutex<Option<BTreeMap<u64, u64>>>,
}

impl LoadMeter {
    /// Samples the counters when an interval has passed, and publishes what changed.
    pub fn tick(&self, node: &ClusterNode, engine: &Engine) {
        let now = node.clock.now();
        let rates = {
            let mut sample = self.sample.lock();
            if let Some((at, _)) = sample.as_ref() {
                if now.saturating_duration_since(*at) < LOAD_INTERVAL {
                    return;
                }
            }
            // Only once an interval: the engine's snapshot visits every region.
            let totals: HashMap<u64, u64> = engine
                .stats()
                .regions
                .iter()
                .map(|r| (r.id, r.read_requests.saturating_add(r.write_requests)))
                .collect();
            let rates = sample.as_ref().and_then(|(at, before)| {
                rates(before, &totals, now.saturating_duration_since(*at))
            });
            *sample = Some((now, totals));
            match rates {
                Some(rates) => rates,
                None => return,
            }
        };
        let mut published = self.published.lock();
        if published.as_ref().is_some_and(|old| !changed(old, &rates)) {
            return;
        }
        match node.coord.publish_load(&node.lease, &node.sid, &rates) {
            Ok(()) => *published = Some(rates),
            Err(e) => tracing::warn!(error = %e, "could not publish the regions' load"),
        }
    }
}

/// Requests per second of each region open in both samples.
fn rates(
    before: &HashMap<u64, u64>,
    now: &HashMap<u64, u64>,
    elapsed: Duration,
) -> Option<BTreeMap<u64, u64>> {
    let millis = u64::try_from(elapsed.as_millis()).ok().filter(|&m| m > 0)?;
    Some(
        now.iter()
            .filter_map(|(id, total)| {
                let served = total.saturating_sub(*before.get(id)?);
                Some((*id, served.saturating_mul(1000) / millis))
            })
            .collect(),
    )
}

/// True when the regions differ, or a rate moved by more than a fifth (and by more than
/// [`SAME_WITHIN`] requests per second).
fn changed(old: &BTreeMap<u64, u64>, new: &BTreeMap<u64, u64>) -> bool {
    if old.len() != new.len() || old.keys().zip(new.keys()).any(|(a, b)| a != b) {
        return true;
    }
    old.values().zip(new.values()).any(|(&a, &b)| {
        let diff = a.abs_diff(b);
        diff > SAME_WITHIN && diff * 5 > a.max(b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_requests_per_second_of_regions_seen_twice() {
        let before = HashMap::from([(1, 100), (2, 0)]);
        let now = HashMap::from([(1, 1100), (2, 50), (3, 9999)]);
        let r = rates(&before, &now, Duration::from_secs(10)).unwrap();
        assert_eq!(r, BTreeMap::from([(1, 100), (2, 5)]));
        assert!(rates(&before, &now, Duration::ZERO).is_none());
    }

    #[test]
    fn small_changes_are_not_published_again() {
        let old = BTreeMap::from([(1, 100), (2, 0)]);
        assert!(!changed(&old, &BTreeMap::from([(1, 110), (2, 5)])));
        assert!(changed(&old, &BTreeMap::from([(1, 200), (2, 0)])));
        assert!(changed(&old, &BTreeMap::from([(1, 100)])));
        assert!(changed(&old, &BTreeMap::from([(1, 100), (3, 0)])));
    }
}
