//! What every handler is given: the service, the cluster's shape as clients see it, and
//! the native scanners' state. Nothing else of the server is reachable from a handler.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use strata_server::Service;

use crate::client::scanners::ScannerTable;
use crate::topology::Topology;

/// Shared by every connection of one RPC server.
pub struct Context {
    pub service: Arc<Service>,
    pub topology: Arc<dyn Topology>,
    pub scanners: ScannerTable,
    procedures: AtomicU64,
}

impl Context {
    pub fn new(service: Arc<Service>, topology: Arc<dyn Topology>) -> Context {
        let lease = service.scanner_lease();
        Context {
            service,
            topology,
            scanners: ScannerTable::new(lease),
            procedures: AtomicU64::new(1),
        }
    }

    /// A new procedure id. Every change runs before its call answers, so a procedure is
    /// finished as soon as it has an id.
    pub fn next_procedure(&self) -> u64 {
        self.procedures.fetch_add(1, Ordering::Relaxed)
    }
}
