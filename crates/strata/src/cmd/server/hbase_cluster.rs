//! [`ClusterTopology`]: the cluster as HBase clients are told it. Every member answers
//! as master and as hbase:meta's server (the service sends administration on to the
//! elected master, and every member computes meta from the region directory it follows);
//! a region is named at its owner's HBase port, so clients reach owners directly.

use std::sync::Arc;

use strata_cluster::{Endpoints, Ownership};
use strata_hrpc::{ServerAddr, Topology};
use strata_server::table::RegionInfo;

pub(crate) struct ClusterTopology {
    ownership: Arc<Ownership>,
    cluster_id: String,
    this: ServerAddr,
}

impl ClusterTopology {
    /// This member, known to others by `endpoints` (its HBase port among them).
    pub(crate) fn new(ownership: Arc<Ownership>, cluster: &str, endpoints: &Endpoints) -> Self {
        let this = address(&ownership.node().sid, endpoints);
        ClusterTopology {
            ownership,
            cluster_id: super::hbase_rpc::cluster_id(cluster),
            this,
        }
    }
}

/// A member as HBase names it; its start code is its server id, which no other process
/// of the cluster ever takes, so a restarted server is told from the one before it.
fn address(sid: &str, endpoints: &Endpoints) -> ServerAddr {
    ServerAddr {
        host: endpoints.host.clone(),
        port: endpoints.hbase,
        start_code: sid.parse().unwrap_or(0),
    }
}

impl Topology for ClusterTopology {
    fn cluster_id(&self) -> String {
        self.cluster_id.clone()
    }

    fn this_server(&self) -> ServerAddr {
        self.this.clone()
    }

    fn master(&self) -> Option<ServerAddr> {
        Some(self.this.clone())
    }

    fn servers(&self) -> Vec<ServerAddr> {
        let view = self.ownership.view();
        let mut servers: Vec<ServerAddr> = view
            .live
            .iter()
            .filter(|(_, e)| e.hbase != 0)
            .map(|(sid, e)| address(sid, e))
            .collect();
        servers.sort_by(|a, b| (&a.host, a.port).cmp(&(&b.host, b.port)));
        servers
    }

    /// The owner, when it serves HBase RPC; else this member, which forwards.
    fn owner_of(&self, region: &RegionInfo) -> Option<ServerAddr> {
        let view = self.ownership.view();
        let owner = view.regions.get(&region.id)?.record.owner.clone()?;
        match view.live.get(&owner) {
            Some(endpoints) if endpoints.hbase != 0 => Some(address(&owner, endpoints)),
            Some(_) => Some(self.this.clone()),
            None => None,
        }
    }

    /// The region record's epoch: every change of owner writes the record again, so it
    /// grows with each move.
    fn location_seq(&self, region: &RegionInfo) -> u64 {
        let view = self.ownership.view();
        view.regions
            .get(&region.id)
            .and_then(|r| u64::try_from(r.epoch).ok())
            .unwrap_or(1)
            .max(1)
    }
}
