//! [`Follower`]: every server's loop that keeps its service in step with the cluster. Each
//! round reads the region directory and the live servers; the master then assigns the
//! regions whose owner is gone, and any other server follows the catalog the master
//! writes; finally every server places its regions again (opening those assigned to it,
//! releasing those assigned elsewhere, forwarding to new owners).
//!
//! It polls etcd (two range reads a round, every [`ROUND`]): a failover waits a lease TTL
//! for etcd to notice a death anyway, and a round is cheap next to that.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use strata_server::Service;

use crate::ownership::Ownership;

/// The pause between rounds.
pub const ROUND: Duration = Duration::from_millis(200);

/// The running loop; stopped when dropped or when the service is gone.
pub struct Follower {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Follower {
    /// Starts following for `service`, placing its regions through `ownership`.
    pub fn start(ownership: Arc<Ownership>, service: Weak<Service>) -> std::io::Result<Follower> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("cluster-follower".into())
            .spawn(move || {
                while !stopping.load(Ordering::Acquire) {
                    let Some(service) = service.upgrade() else {
                        return;
                    };
                    round(&ownership, &service);
                    drop(service);
                    ownership.node.clock.sleep(ROUND);
                }
            })?;
        Ok(Follower {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One round; failures are logged and the next round tries again.
pub fn round(ownership: &Ownership, service: &Service) {
    if let Err(e) = ownership.refresh_view() {
        tracing::warn!(error = %e, "cannot read the cluster's directory");
        return;
    }
    let directory = service.directory();
    if ownership.is_master() {
        let regions: Vec<u64> = directory
            .list_tables()
            .iter()
            .filter_map(|t| directory.table_regions(t).ok())
            .flatten()
            .map(|r| r.id)
            .collect();
        if let Err(e) = ownership.assign_orphans(&regions) {
            tracing::warn!(error = %e, "cannot reassign the regions of a dead server");
        }
    } else if let Err(e) = directory.sync_with_catalog() {
        tracing::warn!(error = %e, "cannot follow the catalog");
    }
    match directory.refresh_placements() {
        Ok(0) => {}
        Ok(moved) => tracing::info!(regions = moved, "regions placed again"),
        Err(e) => tracing::warn!(error = %e, "a region could not be opened here"),
    }
}
