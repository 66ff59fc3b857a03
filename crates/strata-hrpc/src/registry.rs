//! ClientMetaService: what a client with `RpcConnectionRegistry` asks first (the cluster
//! id, the master, where hbase:meta is, which servers can answer these questions).

use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::region_name::META_REGION_ID;

/// Serves one ClientMetaService method.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    let topology = &ctx.topology;
    match call.method.as_str() {
        "GetClusterId" => Ok(Reply::message(&pb::GetClusterIdResponse {
            cluster_id: Some(topology.cluster_id()),
        })),
        "GetActiveMaster" => Ok(Reply::message(&pb::GetActiveMasterResponse {
            server_name: topology.master().map(|m| m.to_proto()),
        })),
        "GetMasters" => {
            let master = topology.master();
            let entries = master
                .iter()
                .map(|m| pb::GetMastersResponseEntry {
                    server_name: m.to_proto(),
                    is_active: true,
                })
                .collect();
            Ok(Reply::message(&pb::GetMastersResponse {
                master_servers: entries,
            }))
        }
        "GetMetaRegionLocations" => Ok(Reply::message(&pb::GetMetaRegionLocationsResponse {
            meta_locations: vec![meta_location(ctx)],
        })),
        "GetBootstrapNodes" => Ok(Reply::message(&pb::GetBootstrapNodesResponse {
            server_name: topology.servers().iter().map(|s| s.to_proto()).collect(),
        })),
        other => Err(RemoteException::invalid(format!(
            "ClientMetaService has no method {other}"
        ))),
    }
}

/// hbase:meta's region, served by this server (every server computes meta).
pub fn meta_location(ctx: &Context) -> pb::RegionLocation {
    pb::RegionLocation {
        region_info: meta_region_info(),
        server_name: Some(ctx.topology.this_server().to_proto()),
        seq_num: 1,
    }
}

/// hbase:meta's RegionInfo.
pub fn meta_region_info() -> pb::RegionInfo {
    pb::RegionInfo {
        region_id: META_REGION_ID,
        table_name: pb::TableName {
            namespace: bytes::Bytes::from_static(b"hbase"),
            qualifier: bytes::Bytes::from_static(b"meta"),
        },
        start_key: Some(bytes::Bytes::new()),
        end_key: Some(bytes::Bytes::new()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}
