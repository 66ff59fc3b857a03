//! What HBase clients read from ZooKeeper, for the read-only ZooKeeper facade to serve:
//! `/hbase/hbaseid`, `/hbase/master` and `/hbase/meta-region-server`, each "PBUF" and a
//! protobuf message behind the writer's metadata, as HBase's `RecoverableZooKeeper`
//! writes every znode: `0xFF`, a big-endian i32 length, that many bytes of writer id.
//! hbase-client strips the metadata when present; gohbase insists on it. Computed from
//! the topology at each read.

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

/// The first byte of a znode that carries its writer's metadata.
const METADATA_MAGIC: u8 = 0xFF;

/// Who wrote the znode, in the metadata's place (HBase puts its ZooKeeper watcher's id and
/// a random salt there; no client reads it, gohbase only needs it not to be empty).
const WRITER_ID: &[u8] = b"strata";

fn pbuf(message: &impl Message) -> Bytes {
    let mut out =
        BytesMut::with_capacity(1 + 4 + WRITER_ID.len() + PB_MAGIC.len() + message.encoded_len());
    out.put_u8(METADATA_MAGIC);
    out.put_i32(WRITER_ID.len() as i32);
    out.put_slice(WRITER_ID);
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

    /// The protobuf after HBase's metadata and the PBUF magic, checking both.
    fn message_of(znode: &[u8]) -> &[u8] {
        assert_eq!(znode[0], METADATA_MAGIC);
        let id_len = i32::from_be_bytes(znode[1..5].try_into().unwrap()) as usize;
        assert!(id_len >= 1, "gohbase refuses empty metadata");
        let rest = &znode[5 + id_len..];
        assert_eq!(&rest[..4], b"PBUF");
        &rest[4..]
    }

    #[test]
    fn znodes_carry_the_metadata_the_magic_and_the_server() {
        let topology = SingleServer {
            cluster_id: "c1".into(),
            addr: ServerAddr {
                host: "h".into(),
                port: 16020,
                start_code: 7,
            },
        };
        let id = cluster_id(&topology);
        assert_eq!(
            pb::ClusterId::decode(message_of(&id)).unwrap().cluster_id,
            "c1"
        );
        let meta = meta_region_server(&topology);
        let decoded = pb::MetaRegionServer::decode(message_of(&meta)).unwrap();
        assert_eq!(decoded.server.host_name, "h");
        assert_eq!(decoded.server.port, Some(16020));
        assert_eq!(decoded.state, Some(META_OPEN));
        let master = master(&topology).unwrap();
        assert_eq!(
            pb::Master::decode(message_of(&master))
                .unwrap()
                .master
                .start_code,
            Some(7)
        );
    }
}
