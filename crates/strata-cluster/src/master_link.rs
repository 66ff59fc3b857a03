//! [`MasterPointer`]: where this server believes the master is, for the service's
//! administration (`strata_server::remote::MasterLink`). A server that is not master sends
//! namespace, table, region and cluster administration to the master over the internal
//! RPC; the master carries it out itself.
//!
//! The election tells it: the campaign loop hears each master it loses to, and the
//! server's own win is recorded once it has taken up the role (the catalog and the moves
//! are its), not at the win itself, so no request is carried out by a master still
//! starting.

use std::sync::Arc;

use parking_lot::RwLock;
use strata_coord::MasterInfo;
use strata_server::cluster_members::ClusterMembers;
use strata_server::remote::{Master, MasterLink};

use crate::config::Endpoints;
use crate::ownership::Ownership;

#[derive(Debug, Clone)]
enum Known {
    Nobody,
    Other { sid: String, endpoints: Endpoints },
    Myself,
}

/// Where the master is, as the election last said.
#[derive(Debug)]
pub struct MasterPointer {
    ownership: Arc<Ownership>,
    known: RwLock<Known>,
}

impl MasterPointer {
    /// No master known yet; peers are reached through `ownership`'s clients.
    pub fn new(ownership: Arc<Ownership>) -> Arc<MasterPointer> {
        Arc::new(MasterPointer {
            ownership,
            known: RwLock::new(Known::Nobody),
        })
    }

    /// The election names `master` (another server), or none.
    pub fn heard(&self, master: Option<&MasterInfo>) {
        let own = &self.ownership.node.sid;
        let known = match master {
            Some(info) if &info.sid == own => return,
            Some(info) => match Endpoints::parse(&info.addr) {
                Ok(endpoints) => Known::Other {
                    sid: info.sid.clone(),
                    endpoints,
                },
                Err(e) => {
                    tracing::warn!(addr = %info.addr, error = %e, "the master's address is unreadable");
                    Known::Nobody
                }
            },
            None => Known::Nobody,
        };
        *self.known.write() = known;
    }

    /// This server has taken up the master's role.
    pub fn leading(&self) {
        *self.known.write() = Known::Myself;
    }
}

impl MasterLink for MasterPointer {
    fn master(&self) -> Master {
        match &*self.known.read() {
            Known::Myself => Master::Here,
            Known::Other { endpoints, .. } => Master::Peer(self.ownership.peers.get(endpoints)),
            Known::Nobody => Master::Unknown,
        }
    }

    fn members(&self) -> Option<ClusterMembers> {
        let master = match &*self.known.read() {
            Known::Myself => Some(self.ownership.node.sid.clone()),
            Known::Other { sid, .. } => Some(sid.clone()),
            Known::Nobody => None,
        };
        Some(self.ownership.view().members(master))
    }

    fn after_admin(&self) {
        if let Err(e) = self.ownership.refresh_view() {
            // The follower's next round reads it again; requests wait for it meanwhile.
            tracing::warn!(error = %e, "cannot read the region directory after administration");
        }
    }
}
