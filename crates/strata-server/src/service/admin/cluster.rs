//! [`Admin`]'s cluster administration (moves, the balancer, decommissioning) and what the
//! cluster has.

use std::sync::Arc;

use super::at_master::AdminAtMaster;
use super::Admin;
use crate::cluster_members::ServerCounts;
use crate::error::{Result, ServiceError};
use crate::registry::ClusterAdmin;
use crate::remote::Master;

impl Admin {
    /// Installs cluster administration (the server became master).
    pub fn set_cluster_admin(&self, admin: Arc<dyn ClusterAdmin>) {
        *self.cluster_admin.write() = Some(admin);
    }

    /// Cluster administration: the master's own; on another server of a cluster, one that
    /// has the master carry each call out; standalone, an error.
    pub fn cluster_admin(&self) -> Result<Arc<dyn ClusterAdmin>> {
        // Moves, the balancer and decommissioning name regions and servers, not tables:
        // they need ADMIN on the cluster (HBase asks it of a move only on the table).
        self.require(
            strata_access::AdminOp::Balance,
            strata_access::Target::Cluster,
        )?;
        let Some(link) = &self.master_link else {
            return self.cluster_admin.read().clone().ok_or_else(|| {
                ServiceError::InvalidArgument("moves and the balancer need cluster mode".into())
            });
        };
        match (link.master(), self.cluster_admin.read().clone()) {
            (Master::Here, Some(own)) => Ok(own),
            _ => Ok(Arc::new(AdminAtMaster(Arc::clone(link)))),
        }
    }

    /// How many masters and servers the cluster has (HBase's `status`): a standalone
    /// server is its one master and server.
    pub fn server_counts(&self) -> ServerCounts {
        match self.master_link.as_ref().and_then(|link| link.members()) {
            Some(members) => ServerCounts::of(&members),
            None => ServerCounts::STANDALONE,
        }
    }

    /// True if this server is the cluster's master (never standalone).
    pub(crate) fn is_master_here(&self) -> bool {
        self.master_link
            .as_deref()
            .is_some_and(|link| matches!(link.master(), Master::Here))
    }
}
