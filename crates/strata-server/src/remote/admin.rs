//! Administration sent to the master (cluster mode).
//!
//! Only the master writes the catalog and places regions, yet a client may ask any server
//! to create a table or move a region. A server that is not master sends such a request
//! to the master as an [`AdminRequest`] over the internal RPC, waits for its
//! [`AdminReply`], then reads the catalog so that the client's next request already sees
//! the change. [`MasterLink`] says where the master is; the cluster crate keeps it current
//! from the election.

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{FamilyOptions, SchemaMetadata};

use crate::catalog::NamespaceConfig;
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::remote::RegionPeer;
use crate::table_changes::{AlterOp, SplitAt};

/// How often an administration request is tried again while no master can take it.
const NO_MASTER_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// How long an administration request waits for a master that can take it (an election
/// after the master died takes about one lease TTL).
const NO_MASTER_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// One administration call, as a server that is not master sends it to the master.
#[derive(Debug, Clone, PartialEq)]
pub enum AdminRequest {
    CreateNamespace(String, NamespaceConfig),
    ModifyNamespace(String, NamespaceConfig),
    DropNamespace(String),
    CreateTable {
        name: TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
        durability: WriteDurability,
        metadata: SchemaMetadata,
    },
    DeleteTable(TableName),
    EnableTable(TableName),
    DisableTable(TableName),
    AlterTable(TableName, AlterOp),
    TruncateTable {
        name: TableName,
        preserve_splits: bool,
    },
    SplitRegion {
        table: TableName,
        at: SplitAt,
    },
    MergeRegions {
        table: TableName,
        a: u64,
        b: u64,
    },
    MoveRegion {
        region: u64,
        target: Option<String>,
    },
    Balance,
    SetBalancer(bool),
    BalancerEnabled,
    Decommission {
        server: String,
        on: bool,
    },
    ListDecommissioned,
    Assign(u64),
    Unassign(u64),
    /// A grant: its actions added to what its subject holds at its scope (`merge`), or
    /// replacing them (HBase's default).
    Grant {
        grant: strata_access::Grant,
        merge: bool,
    },
    /// Takes the grant's actions from its subject at its scope.
    Revoke(strata_access::Grant),
}

/// The master's answer to an [`AdminRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminReply {
    Done,
    Number(u64),
    Pair(u64, u64),
    Flag(bool),
    Text(String),
    Texts(Vec<String>),
}

impl AdminReply {
    fn unexpected(&self) -> ServiceError {
        ServiceError::Remote {
            kind: crate::error::ErrorKind::Io,
            message: format!("the master answered an unexpected {self:?}"),
        }
    }

    pub fn done(self) -> Result<()> {
        match self {
            AdminReply::Done => Ok(()),
            other => Err(other.unexpected()),
        }
    }

    pub fn number(self) -> Result<u64> {
        match self {
            AdminReply::Number(n) => Ok(n),
            other => Err(other.unexpected()),
        }
    }

    pub fn pair(self) -> Result<(u64, u64)> {
        match self {
            AdminReply::Pair(a, b) => Ok((a, b)),
            other => Err(other.unexpected()),
        }
    }

    pub fn flag(self) -> Result<bool> {
        match self {
            AdminReply::Flag(f) => Ok(f),
            other => Err(other.unexpected()),
        }
    }

    pub fn text(self) -> Result<String> {
        match self {
            AdminReply::Text(t) => Ok(t),
            other => Err(other.unexpected()),
        }
    }

    pub fn texts(self) -> Result<Vec<String>> {
        match self {
            AdminReply::Texts(t) => Ok(t),
            other => Err(other.unexpected()),
        }
    }
}

/// Where the master is, as this server last heard from the election.
#[derive(Debug, Clone)]
pub enum Master {
    /// This server is the master (and has taken up the role): it runs administration
    /// itself.
    Here,
    /// Another server, reached through its internal RPC client.
    Peer(Arc<dyn RegionPeer>),
    /// None known at the moment (an election is under way).
    Unknown,
}

/// Tells a server where the master is (cluster mode; standalone has none).
pub trait MasterLink: Send + Sync + std::fmt::Debug {
    fn master(&self) -> Master;

    /// Told after the master carried out a request this server sent, before this server
    /// reads the catalog again: the place to catch up with where the master put new
    /// regions, so the client's next request finds them.
    fn after_admin(&self) {}

    /// The cluster's members as this server last saw them, for `status`; `None` when it
    /// does not know.
    fn members(&self) -> Option<crate::cluster_members::ClusterMembers> {
        None
    }
}

/// The error a server that is not master answers an administration request it was sent.
pub(crate) fn not_master() -> ServiceError {
    ServiceError::NotMaster
}

/// True if `error` means the request was not carried out and another master may take it.
fn try_again(error: &ServiceError) -> bool {
    matches!(
        error,
        ServiceError::NotMaster | ServiceError::PeerUnavailable { unsent: true, .. }
    )
}

/// Sends `request` to the master, waiting up to [`NO_MASTER_WAIT`] while none can take it
/// (no master known, the one known is gone before the request reached it, or it is no
/// longer master). `None` when this server is the master: the caller runs it itself.
///
/// A request that reached the master and got no answer is not sent again (it may have
/// been carried out): the error says so.
pub(crate) fn send_to_master(
    link: &dyn MasterLink,
    request: &AdminRequest,
) -> Option<Result<AdminReply>> {
    // Known gap: this wait should take the service's clock (issue 25's clock seam).
    #[allow(clippy::disallowed_methods)]
    let clock = strata_runtime::clock::system();
    let deadline = clock.now() + NO_MASTER_WAIT;
    loop {
        let outcome = match link.master() {
            Master::Here => return None,
            Master::Peer(peer) => peer.admin(request),
            Master::Unknown => Err(ServiceError::NotMaster),
        };
        match outcome {
            Err(e) if try_again(&e) && clock.now() < deadline => clock.sleep(NO_MASTER_POLL),
            Err(ServiceError::NotMaster) => {
                return Some(Err(ServiceError::PeerUnavailable {
                    peer: "the master".into(),
                    reason: format!("no master took the request within {NO_MASTER_WAIT:?}"),
                    unsent: true,
                }))
            }
            other => return Some(other),
        }
    }
}
