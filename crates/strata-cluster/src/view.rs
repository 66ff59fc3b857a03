//! [`ClusterView`]: the region directory, the live servers and the decommission marks as a
//! server last read them from etcd. Every server follows it to route requests; the master
//! also decides by it.

use std::collections::{BTreeSet, HashMap, HashSet};

use strata_coord::{Region, SharedCoordinator};
use strata_server::cluster_members::ClusterMembers;

use crate::config::Endpoints;

/// The region directory and the live servers, as last read.
#[derive(Debug, Clone, Default)]
pub struct ClusterView {
    pub regions: HashMap<u64, Region>,
    /// Live servers by id, with their endpoints.
    pub live: HashMap<String, Endpoints>,
    /// Live servers the master places no region on (HBase's decommissioned servers).
    pub decommissioned: HashSet<String>,
}

impl ClusterView {
    /// Reads the view from etcd.
    pub fn read(coord: &SharedCoordinator) -> strata_coord::Result<ClusterView> {
        let regions = coord.regions()?.into_iter().map(|r| (r.id, r)).collect();
        let mut live = HashMap::new();
        for server in coord.live_servers()? {
            if let Ok(endpoints) = Endpoints::parse(&server.addr) {
                live.insert(server.sid, endpoints);
            }
        }
        // Marks of servers that are gone are ignored: server ids are never reused.
        let decommissioned = coord
            .decommissioned_servers()?
            .into_iter()
            .filter(|sid| live.contains_key(sid))
            .collect();
        Ok(ClusterView {
            regions,
            live,
            decommissioned,
        })
    }

    /// The live server with the fewest regions assigned (ties: the smallest id), among
    /// those not decommissioned.
    pub fn least_loaded(&self) -> Option<String> {
        let mut load: HashMap<&str, usize> = self
            .live
            .keys()
            .filter(|s| !self.decommissioned.contains(*s))
            .map(|s| (s.as_str(), 0))
            .collect();
        for region in self.regions.values() {
            if let Some(count) = region.record.owner.as_deref().and_then(|o| load.get_mut(o)) {
                *count += 1;
            }
        }
        load.into_iter()
            .min_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)))
            .map(|(sid, _)| sid.to_string())
    }

    /// The endpoints of `region`'s owner when it is live.
    pub fn live_owner(&self, region: &Region) -> Option<&Endpoints> {
        self.live.get(region.record.owner.as_deref()?)
    }

    /// The members `status` counts, with `master` as the election last named it: the
    /// live servers, and as dead the owners of regions that are not live (their regions
    /// await another owner), each sorted.
    pub fn members(&self, master: Option<String>) -> ClusterMembers {
        let mut live: Vec<String> = self.live.keys().cloned().collect();
        live.sort();
        let dead: BTreeSet<String> = self
            .regions
            .values()
            .filter_map(|r| r.record.owner.as_ref())
            .filter(|owner| !self.live.contains_key(*owner))
            .cloned()
            .collect();
        ClusterMembers {
            live,
            master,
            dead: dead.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_coord::RegionRecord;

    fn endpoints(host: &str) -> Endpoints {
        Endpoints {
            host: host.into(),
            thrift: 1,
            grpc: 2,
            http: 3,
            peer: 4,
            hbase: 5,
        }
    }

    #[test]
    fn the_least_loaded_live_server_skips_decommissioned_ones() {
        let mut view = ClusterView::default();
        for sid in ["a", "b", "c"] {
            view.live.insert(sid.into(), endpoints(sid));
        }
        let mut record = RegionRecord::new("t", b"", b"");
        record.owner = Some("a".into());
        view.regions.insert(
            1,
            Region {
                id: 1,
                record,
                epoch: 5,
            },
        );
        assert_eq!(view.least_loaded().as_deref(), Some("b"));
        view.decommissioned.insert("b".into());
        assert_eq!(view.least_loaded().as_deref(), Some("c"));
        assert_eq!(view.live_owner(&view.regions[&1]), Some(&endpoints("a")));
    }

    #[test]
    fn members_are_the_live_servers_and_the_owners_that_are_not() {
        let mut view = ClusterView::default();
        for sid in ["c", "a", "b"] {
            view.live.insert(sid.into(), endpoints(sid));
        }
        for (id, owner) in [
            (1, Some("a")),
            (2, Some("gone")),
            (3, Some("gone")),
            (4, None),
        ] {
            let mut record = RegionRecord::new("t", b"", b"");
            record.owner = owner.map(str::to_string);
            view.regions.insert(
                id,
                Region {
                    id,
                    record,
                    epoch: 1,
                },
            );
        }
        let members = view.members(Some("b".into()));
        assert_eq!(members.live, ["a", "b", "c"]);
        assert_eq!(members.master.as_deref(), Some("b"));
        assert_eq!(members.dead, ["gone"]);
    }
}
