//! Where the servers are, as HBase clients are told: the cluster id, the master, and the
//! server that owns each region. Standalone, one server is all of them; in cluster mode
//! the composition root hands in a view of the cluster.

use strata_server::table::{RegionInfo, ServedBy};

use crate::pb;

/// One server as HBase names it: host, RPC port and start code (its start time in ms,
/// which tells a restarted server from the one before it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerAddr {
    pub host: String,
    pub port: u16,
    pub start_code: u64,
}

impl ServerAddr {
    pub fn to_proto(&self) -> pb::ServerName {
        pb::ServerName {
            host_name: self.host.clone(),
            port: Some(u32::from(self.port)),
            start_code: Some(self.start_code),
        }
    }

    /// `host:port`, as hbase:meta's `info:server` column holds it.
    pub fn host_and_port(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

/// What the RPC front end needs to know about the cluster.
pub trait Topology: Send + Sync {
    /// The id clients cache per cluster (`/hbase/hbaseid`).
    fn cluster_id(&self) -> String;
    /// This server, by its advertised host.
    fn this_server(&self) -> ServerAddr;
    /// The active master, if one is known.
    fn master(&self) -> Option<ServerAddr>;
    /// Every live server (each serves ClientMetaService, so each can bootstrap a client).
    fn servers(&self) -> Vec<ServerAddr>;
    /// The server that owns `region`, or `None` while it has none.
    fn owner_of(&self, region: &RegionInfo) -> Option<ServerAddr>;

    /// Whether a call naming `region` is answered here: clients are sent to owners by
    /// hbase:meta, so a call that reaches another server means the client's cache is stale
    /// (the region moved), and it is told NotServingRegionException to look again.
    fn serves_here(&self, region: &RegionInfo) -> bool {
        self.owner_of(region) == Some(self.this_server())
    }

    /// A number that grows whenever `region` changes owner: hbase:meta's
    /// `seqnumDuringOpen`, and the sequence number of a RegionMovedException. The client
    /// keeps a location it learns only when its number is higher than the one it cached.
    fn location_seq(&self, _region: &RegionInfo) -> u64 {
        1
    }
}

/// The standalone server: master, meta and every region are here.
#[derive(Debug, Clone)]
pub struct SingleServer {
    pub cluster_id: String,
    pub addr: ServerAddr,
}

impl Topology for SingleServer {
    fn cluster_id(&self) -> String {
        self.cluster_id.clone()
    }

    fn this_server(&self) -> ServerAddr {
        self.addr.clone()
    }

    fn master(&self) -> Option<ServerAddr> {
        Some(self.addr.clone())
    }

    fn servers(&self) -> Vec<ServerAddr> {
        vec![self.addr.clone()]
    }

    fn owner_of(&self, region: &RegionInfo) -> Option<ServerAddr> {
        match region.served_by {
            ServedBy::Nobody => None,
            _ => Some(self.addr.clone()),
        }
    }
}
