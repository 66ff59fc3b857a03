//! The balancer's second rule: evening out load once region counts are even. Each server
//! publishes how many requests per second each of its regions served (`load_meter.rs`,
//! `/load/<sid>`); when the busiest server (by that sum) carries clearly more than the
//! idlest, the master moves the one region whose move narrows the gap most. The count rule
//! (`moves.rs`) moves a server's least busy region, so the two rules do not undo each
//! other: a hot region moved away is followed, if counts drift apart, by a cold one back.
//!
//! Hysteresis: only a gap over [`MIN_GAP_RATIO`] of the idlest and over [`MIN_GAP`] requests
//! per second counts, a move must shrink the gap, and after a load move the balancer waits
//! [`LOAD_SETTLE`] (until the servers published what the move changed) before another.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

/// The busiest server's load must exceed the idlest's by this factor...
pub const MIN_GAP_RATIO: f64 = 1.3;
/// ...and by this many requests per second.
pub const MIN_GAP: u64 = 50;
/// How long after a load move the next one waits: two publications of every server's load.
pub const LOAD_SETTLE: Duration = Duration::from_secs(25);

/// A region to move for load: which, from where, to where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadMove {
    pub region: u64,
    pub from: String,
    pub to: String,
}

/// Each region's last published rate, whichever server published it: a region that just
/// moved is still known by its old server's figure until its new one publishes.
pub fn by_region(rates: &HashMap<String, BTreeMap<u64, u64>>) -> HashMap<u64, u64> {
    let mut out: HashMap<u64, u64> = HashMap::new();
    for (&region, &rate) in rates.values().flatten() {
        let known = out.entry(region).or_insert(0);
        *known = (*known).max(rate);
    }
    out
}

/// The move that narrows the load gap most, if the gap is worth one. `regions` lists each
/// serving server's regions (decommissioned servers excluded); `rates` each region's
/// requests per second ([`by_region`]; a region missing there counts as idle).
pub fn choose(regions: &HashMap<String, Vec<u64>>, rates: &HashMap<u64, u64>) -> Option<LoadMove> {
    let rate = |_: &str, region: u64| rates.get(&region).copied().unwrap_or(0);
    let load: Vec<(&String, u64)> = regions
        .iter()
        .map(|(sid, ids)| (sid, ids.iter().map(|&id| rate(sid, id)).sum()))
        .collect();
    let (hot, hot_load) = load.iter().max_by_key(|(sid, l)| (*l, *sid))?;
    let (cool, cool_load) = load
        .iter()
        .min_by_key(|(sid, l)| (*l, std::cmp::Reverse(*sid)))?;
    let gap = hot_load.saturating_sub(*cool_load);
    let worth = gap > MIN_GAP && (*hot_load as f64) > MIN_GAP_RATIO * (*cool_load as f64);
    if hot == cool || !worth {
        return None;
    }
    // Moving a region of rate r leaves a gap of |gap - 2r|: best when r is nearest gap/2,
    // and only a region with 0 < r < gap shrinks it at all.
    let best = regions[*hot]
        .iter()
        .map(|&id| (id, rate(hot, id)))
        .filter(|&(_, r)| r > 0 && r < gap)
        .min_by_key(|&(id, r)| (gap.abs_diff(2 * r), id))?;
    Some(LoadMove {
        region: best.0,
        from: (*hot).clone(),
        to: (*cool).clone(),
    })
}

/// The least busy of `regions` (the count rule's pick), by [`by_region`]'s rates, passing
/// over a region moved for load a moment ago (`just_moved`) while another will do: its
/// rate may be unknown while neither its old nor its new server lists it.
pub fn coolest(regions: &[u64], rates: &HashMap<u64, u64>, just_moved: Option<u64>) -> Option<u64> {
    regions.iter().copied().min_by_key(|&id| {
        (
            Some(id) == just_moved,
            rates.get(&id).copied().unwrap_or(0),
            id,
        )
    })
}

/// Servers that take no region (decommissioned) out of a per-server map.
pub fn serving<T: Clone>(all: &HashMap<String, T>, out: &HashSet<String>) -> HashMap<String, T> {
    all.iter()
        .filter(|(sid, _)| !out.contains(*sid))
        .map(|(sid, v)| (sid.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    type Regions = HashMap<String, Vec<u64>>;
    type Rates = HashMap<String, BTreeMap<u64, u64>>;

    fn choose(regions: &Regions, rates: &Rates) -> Option<LoadMove> {
        super::choose(regions, &by_region(rates))
    }

    fn cluster(servers: &[(&str, &[(u64, u64)])]) -> (Regions, Rates) {
        let regions = servers
            .iter()
            .map(|(sid, rs)| (sid.to_string(), rs.iter().map(|r| r.0).collect()))
            .collect();
        let rates = servers
            .iter()
            .map(|(sid, rs)| (sid.to_string(), rs.iter().copied().collect()))
            .collect();
        (regions, rates)
    }

    #[test]
    fn two_hot_regions_on_one_server_are_split() {
        let (regions, rates) = cluster(&[("a", &[(1, 1000), (2, 900)]), ("b", &[(3, 10), (4, 5)])]);
        let chosen = choose(&regions, &rates).unwrap();
        assert_eq!((chosen.from.as_str(), chosen.to.as_str()), ("a", "b"));
        // gap 1885: moving 900 leaves |1885 - 1800| = 85, moving 1000 leaves 115.
        assert_eq!(chosen.region, 2);
    }

    #[test]
    fn small_or_relative_gaps_are_left_alone() {
        let (regions, rates) = cluster(&[("a", &[(1, 40)]), ("b", &[(2, 0)])]);
        assert_eq!(choose(&regions, &rates), None, "under MIN_GAP");
        let (regions, rates) = cluster(&[("a", &[(1, 1200)]), ("b", &[(2, 1000)])]);
        assert_eq!(choose(&regions, &rates), None, "within MIN_GAP_RATIO");
    }

    #[test]
    fn a_single_hot_region_is_not_bounced_between_servers() {
        // Moving the one hot region only moves the gap: no move shrinks it.
        let (regions, rates) = cluster(&[("a", &[(1, 5000), (2, 0)]), ("b", &[(3, 0), (4, 0)])]);
        assert_eq!(choose(&regions, &rates), None);
    }

    #[test]
    fn regions_without_a_published_rate_count_as_idle() {
        let a: &[(u64, u64)] = &[(1, 600), (2, 500), (3, 100)];
        let (regions, mut rates) = cluster(&[("a", a), ("b", &[(4, 0)])]);
        rates.remove("b");
        let chosen = choose(&regions, &rates).unwrap();
        // gap 1200: moving region 1 (600) evens the two out exactly.
        assert_eq!((chosen.region, chosen.to.as_str()), (1, "b"));
    }

    #[test]
    fn the_count_rule_moves_the_least_busy_region() {
        let (_, rates) = cluster(&[("a", &[(1, 600), (2, 5), (3, 90)])]);
        let rates = by_region(&rates);
        assert_eq!(coolest(&[1, 2, 3], &rates, None), Some(2));
        assert_eq!(
            coolest(&[7, 4], &rates, None),
            Some(4),
            "no rates: the lowest id"
        );
    }

    /// Found by tests/cluster/test_balance_load.py: a hot region just moved for load was
    /// missing from its new server's last publication, counted as idle there, and the
    /// count rule moved it straight back.
    #[test]
    fn regression_a_region_just_moved_keeps_its_old_servers_rate() {
        // Region 1 (hot) moved from a to b; b has not published since.
        let (_, rates) = cluster(&[("a", &[(1, 900), (2, 0)]), ("b", &[(3, 0), (4, 0)])]);
        let rates = by_region(&rates);
        assert_eq!(coolest(&[1, 3, 4], &rates, None), Some(3));
        // Its old server published again without it, the new one not yet: unknown.
        let (_, rates) = cluster(&[("a", &[(2, 0)]), ("b", &[(3, 5), (4, 7)])]);
        let rates = by_region(&rates);
        assert_eq!(coolest(&[1, 3, 4], &rates, Some(1)), Some(3));
        assert_eq!(
            coolest(&[1], &rates, Some(1)),
            Some(1),
            "nothing else to move"
        );
    }
}
