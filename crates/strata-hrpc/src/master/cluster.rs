//! GetClusterStatus (`Admin.getClusterMetrics`): the servers, the master and the cluster
//! id as the topology knows them. Loads and regions in transition are not reported yet.

use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::pb;

/// The version Strata reports: the HBase release whose protocol it speaks.
pub const REPORTED_VERSION: &str = "2.6.0-strata";

pub fn status(ctx: &Context, call: &Call) -> CallResult {
    let _request: pb::GetClusterStatusRequest = call.param()?;
    let topology = &ctx.topology;
    let servers = topology.servers();
    let master = topology.master();
    let backups = servers
        .iter()
        .filter(|s| Some(*s) != master.as_ref())
        .map(|s| s.to_proto())
        .collect();
    let status = pb::ClusterStatus {
        hbase_version: Some(pb::HBaseVersionFileContent {
            version: REPORTED_VERSION.to_string(),
        }),
        live_servers: servers
            .iter()
            .map(|s| pb::LiveServerInfo {
                server: s.to_proto(),
                server_load: pb::ServerLoad::default(),
            })
            .collect(),
        dead_servers: Vec::new(),
        cluster_id: Some(pb::ClusterIdContent {
            cluster_id: topology.cluster_id(),
        }),
        master: master.map(|m| m.to_proto()),
        backup_masters: backups,
        balancer_on: Some(
            ctx.service
                .admin()
                .cluster_admin()
                .and_then(|admin| admin.balancer_enabled())
                .unwrap_or(false),
        ),
        master_info_port: None,
        servers_name: servers.iter().map(|s| s.to_proto()).collect(),
    };
    Ok(Reply::message(&pb::GetClusterStatusResponse {
        cluster_status: status,
    }))
}
