//! Administration another server sent here because this server is master (cluster mode;
//! see `remote/admin.rs`). A server that is not master refuses it with the retryable
//! `NotMaster`, so a request is never passed on a second time.

use super::PeerServing;
use crate::error::Result;
use crate::remote::{not_master, AdminReply, AdminRequest};
use crate::table::TableDescriptor;

impl PeerServing {
    /// Carries out `request` here, as master.
    pub fn serve_admin(&self, request: AdminRequest) -> Result<AdminReply> {
        // The server that received the call checked its caller; here it runs as the
        // cluster's own request.
        crate::access::as_system(|| self.serve_admin_as_system(request))
    }

    fn serve_admin_as_system(&self, request: AdminRequest) -> Result<AdminReply> {
        if !self.admin.is_master_here() {
            return Err(not_master());
        }
        self.directory.check_serving()?;
        match request {
            AdminRequest::Balance
            | AdminRequest::SetBalancer(_)
            | AdminRequest::BalancerEnabled
            | AdminRequest::MoveRegion { .. }
            | AdminRequest::Decommission { .. }
            | AdminRequest::ListDecommissioned
            | AdminRequest::Assign(_)
            | AdminRequest::Unassign(_) => self.serve_cluster_admin(request),
            other => self.serve_catalog_admin(other),
        }
    }

    /// The calls that change namespaces, tables and regions.
    fn serve_catalog_admin(&self, request: AdminRequest) -> Result<AdminReply> {
        let admin = &self.admin;
        let done = |outcome: Result<()>| outcome.map(|()| AdminReply::Done);
        match request {
            AdminRequest::CreateNamespace(ns, config) => {
                done(admin.create_namespace_with(&ns, config))
            }
            AdminRequest::ModifyNamespace(ns, config) => done(admin.modify_namespace(&ns, config)),
            AdminRequest::DropNamespace(ns) => done(admin.drop_namespace(&ns)),
            AdminRequest::CreateTable {
                name,
                families,
                split_keys,
                durability,
                metadata,
            } => {
                let descriptor = TableDescriptor {
                    name,
                    families,
                    durability,
                    metadata,
                };
                done(admin.create_table_from(descriptor, split_keys))
            }
            AdminRequest::DeleteTable(name) => done(admin.delete_table(&name)),
            AdminRequest::EnableTable(name) => done(admin.enable_table(&name)),
            AdminRequest::DisableTable(name) => done(admin.disable_table(&name)),
            AdminRequest::AlterTable(name, op) => done(admin.alter_table(&name, op)),
            AdminRequest::TruncateTable {
                name,
                preserve_splits,
            } => done(admin.truncate_table(&name, preserve_splits)),
            AdminRequest::SplitRegion { table, at } => admin
                .split_region(&table, at)
                .map(|(a, b)| AdminReply::Pair(a, b)),
            AdminRequest::MergeRegions { table, a, b } => {
                admin.merge_regions(&table, a, b).map(AdminReply::Number)
            }
            AdminRequest::Grant { grant, merge } => done(admin.grant(grant, merge)),
            AdminRequest::Revoke(grant) => {
                done(admin.revoke(&grant.subject, &grant.scope, grant.actions))
            }
            other => self.serve_cluster_admin(other),
        }
    }

    /// Moves, the balancer and decommissioning.
    fn serve_cluster_admin(&self, request: AdminRequest) -> Result<AdminReply> {
        let admin = self.admin.cluster_admin()?;
        let count = |n: usize| AdminReply::Number(n as u64);
        match request {
            AdminRequest::MoveRegion { region, target } => admin
                .move_region(region, target.as_deref())
                .map(AdminReply::Text),
            AdminRequest::Balance => admin.balance().map(count),
            AdminRequest::SetBalancer(on) => admin.set_balancer(on).map(AdminReply::Flag),
            AdminRequest::BalancerEnabled => admin.balancer_enabled().map(AdminReply::Flag),
            AdminRequest::Decommission { server, on } => admin.decommission(&server, on).map(count),
            AdminRequest::ListDecommissioned => admin.decommissioned().map(AdminReply::Texts),
            AdminRequest::Assign(region) => admin.assign(region).map(AdminReply::Text),
            AdminRequest::Unassign(region) => admin.unassign(region).map(|()| AdminReply::Done),
            _ => Err(crate::error::ServiceError::InvalidArgument(
                "not a cluster administration request".into(),
            )),
        }
    }
}
