//! [`Follower`]: every server's loop that keeps its service in step with the cluster. Each
//! round reads the region directory and the live servers; a server that is not the master
//! follows the catalog the master writes; then every server places its regions again
//! (opening those assigned to it, releasing those assigned elsewhere, forwarding to new
//! owners). The master's own duties run in a loop of their own (`master/role.rs`).
//!
//! A round runs when any key of the cluster changes (one etcd watch) and at least every
//! [`ROUND`]. A full round costs about five range reads (directory, members, decommission
//! marks, the catalog), so a server that is not the master skips them while its watch is
//! healthy and has seen no change: then only its placements are looked at again (a region
//! that failed to open is retried). It still reads everything at least every
//! [`FULL_ROUND`], and in the round after its watch (re)started, since a change made
//! between a round's reads and the watch's start reaches no watcher. The master always runs
//! full rounds: it changes the directory itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use strata_server::Service;

use crate::ownership::Ownership;
use crate::rounds::ChangeWatch;
pub use crate::rounds::ROUND;

/// The longest pause between full rounds on a server that is not the master.
pub const FULL_ROUND: Duration = Duration::from_secs(1);

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
        let thread = strata_runtime::thread::spawn("cluster-follower", move || {
            let mut watch = ChangeWatch::default();
            let clock = Arc::clone(&ownership.node.clock);
            let mut changed = true;
            let mut last_full = clock.now();
            while !stopping.load(Ordering::Acquire) {
                let Some(service) = service.upgrade() else {
                    return;
                };
                let due = clock.elapsed(last_full) >= FULL_ROUND;
                if changed || due || ownership.is_master() {
                    round(&ownership, &service);
                    last_full = clock.now();
                } else {
                    place_again(&service);
                }
                drop(service);
                changed = watch.wait(&ownership.node);
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

/// The part of a round that reads nothing from etcd: placing this server's regions again
/// from the view the last full round read.
pub fn place_again(service: &Service) {
    match service.directory().placements().refresh() {
        Ok(0) => {}
        Ok(moved) => tracing::info!(regions = moved, "regions placed again"),
        Err(e) => tracing::warn!(error = %e, "a region could not be opened here"),
    }
}

/// One round; failures are logged and the next round tries again.
pub fn round(ownership: &Ownership, service: &Service) {
    if let Err(e) = ownership.refresh_view() {
        tracing::warn!(error = %e, "cannot read the cluster's directory");
        return;
    }
    if !ownership.is_master() {
        if let Err(e) = service.directory().catalog_sync().follow() {
            tracing::warn!(error = %e, "cannot follow the catalog");
        }
    }
    place_again(service);
}
