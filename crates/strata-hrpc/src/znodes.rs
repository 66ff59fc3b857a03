//! What HBase clients read from ZooKeeper, for the read-only ZooKeeper facade to serve:
//! `/hbase/hbaseid`, `/hbase/master` and `/hbase/meta-region-server`, each "PBUF" and a
//! protobuf message. Computed from the topology at each read.

use bytes::{BufMut, Bytes, BytesMut};
use prost::Message;

use crate::pb;
use crate::topology::Topology;
use crate::PB_MAGIC;

/// The znode paths under HBase's default parent `/hbase`.
pub const CLUSTER_ID: &str = "/hbase/hbaseid";
pub const MASTER: &str = "/hbase/master";
pub const META_REGION_SERVER: &str = "/hbase/meta-region-server";

/// hbase:meta's state when open (RegionState.State.OPEN).
const META_OPEN: u32 = 3;

fn pbuf(message: &impl Message) -> Bytes {
    let mut out = BytesMut::with_capacity(PB_MAGIC.len() + message.encoded_len());
    out.put_slice(PB_MAGIC);
    out.put_slice(&message.encode_to_vec());
    out.freeze()
}

pub fn cluster_id(topology: &dyn Topology) -> Bytes {
    pbuf(&pb::ClusterId {
        cluster_id: topology.cluster_id(),
    })
}

/// The active master; absent while there is none.
pub fn master(topology: &dyn Topology) -> Option<Bytes> {
    let master = topology.master()?;
    Some(pbuf(&pb::Master {
        master: master.to_proto(),
        rpc_version: Some(0),
        info_port: Some(0),
    }))
}

/// Where hbase:meta is: every server computes it, so the server answering names itself.
pub fn meta_region_server(topology: &dyn Topology) -> Bytes {
    pbuf(&pb::MetaRegionServer {
        server: topology.this_server().to_proto(),
        rpc_version: Some(0),
        state: Some(META_OPEN),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{ServerAddr, SingleServer};

    #[test]
    fn znodes_carry_the_magic_and_the_server() {
        let topology = SingleServer {
            cluster_id: "c1".into(),
            addr: ServerAddr {
                host: "h".into(),
                port: 16020,
                start_code: 7,
            },
        };
        let id = cluster_id(&topology);
        assert_eq!(&id[..4], b"PBUF");
        assert_eq!(pb::ClusterId::decode(&id[4..]).unwrap().cluster_id, "c1");
        let meta = meta_region_server(&topology);
        let decoded = pb::MetaRegionServer::decode(&meta[4..]).unwrap();
        assert_eq!(decoded.server.host_name, "h");
        assert_eq!(decoded.server.port, Some(16020));
        assert_eq!(decoded.state, Some(META_OPEN));
        let master = master(&topology).unwrap();
        assert_eq!(
            pb::Master::decode(&master[4..]).unwrap().master.start_code,
            Some(7)
        );
    }
}
