//! What every handler is given: the service, the cluster's shape as clients see it, and
//! the native scanners' state. Nothing else of the server is reachable from a handler.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use strata_server::Service;

use crate::client::scanners::ScannerTable;
use crate::topology::Topology;

/// Shared by every connection of one RPC server.
pub struct Context {
    pub service: Arc<Service>,
    pub topology: Arc<dyn Topology>,
    pub scanners: ScannerTable,
    /// How long a scan call's filter may skip rows before the call answers with what it
    /// has, as a heartbeat, when the client handles heartbeats (HBase's client does). HBase
    /// waits half its RPC timeout; Strata answers sooner, since a heartbeat costs a round
    /// trip and a client's timeout may be short.
    pub heartbeat_after: Duration,
    /// HBase's SIMPLE authentication: the user the connection header names is taken as
    /// the caller, unchecked. Off, every call is anonymous (refused when permissions are
    /// checked).
    pub trust_client_user: bool,
    procedures: AtomicU64,
}

/// The default of [`Context::heartbeat_after`].
pub const HEARTBEAT_AFTER: Duration = Duration::from_secs(1);

impl Context {
    pub fn new(service: Arc<Service>, topology: Arc<dyn Topology>) -> Context {
        let lease = service.scanners().scanner_lease();
        Context {
            service,
            topology,
            scanners: ScannerTable::new(lease),
            heartbeat_after: HEARTBEAT_AFTER,
            trust_client_user: false,
            procedures: AtomicU64::new(1),
        }
    }

    /// The same, with heartbeats after `after` (tests use a short one).
    pub fn with_heartbeat_after(mut self, after: Duration) -> Context {
        self.heartbeat_after = after;
        self
    }

    /// The same, taking the connection header's user as the caller (HBase's SIMPLE
    /// authentication).
    pub fn with_simple_authentication(mut self) -> Context {
        self.trust_client_user = true;
        self
    }

    /// Who a call of a connection whose header named `user` is from.
    pub fn caller(&self, user: &str) -> strata_server::access::Caller {
        use strata_server::access::Caller;
        if self.trust_client_user && !user.is_empty() {
            Caller::user(strata_access::Identity::user(user))
        } else {
            Caller::Anonymous
        }
    }

    /// A new procedure id. Every change runs before its call answers, so a procedure is
    /// finished as soon as it has an id.
    pub fn next_procedure(&self) -> u64 {
        self.procedures.fetch_add(1, Ordering::Relaxed)
    }
}
