//! [`Follower`]: every server's loop that keeps its service in step with the cluster. Each
//! round reads the region directory and the live servers; the master then assigns the
//! regions whose owner is gone, and any other server follows the catalog the master
//! writes; finally every server places its regions again (opening those assigned to it,
//! releasing those assigned elsewhere, forwarding to new owners).
//!
//! A round runs when any key of the cluster changes (one etcd watch) and at least every
//! [`ROUND`]; it costs two range reads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use strata_coord::kv::WatchReceiver;
use strata_server::Service;

use crate::ownership::Ownership;

/// The longest pause between rounds.
pub const ROUND: Duration = Duration::from_millis(200);

/// How long a change may be followed by others before a round reads them all.
const SETTLE: Duration = Duration::from_millis(5);

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
        let thread = strata_engine::util::thread::spawn("cluster-follower", move || {
            let mut watch = None;
            while !stopping.load(Ordering::Acquire) {
                let Some(service) = service.upgrade() else {
                    return;
                };
                round(&ownership, &service);
                drop(service);
                wait_for_change(&ownership, &mut watch);
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

/// Waits for a change of the cluster's keys (or [`ROUND`]), watching them through `watch`
/// (started again whenever it ended), then lets the burst settle.
fn wait_for_change(ownership: &Ownership, watch: &mut Option<WatchReceiver>) {
    let clock = &ownership.node.clock;
    if watch.is_none() {
        *watch = ownership.node.coord.watch_cluster().ok();
    }
    let Some(receiver) = watch.as_ref() else {
        clock.sleep(ROUND);
        return;
    };
    match receiver.next_timeout(ROUND) {
        Some(Ok(_)) => {
            clock.sleep(SETTLE);
            while let Some(event) = receiver.try_next() {
                if event.is_err() {
                    *watch = None;
                    break;
                }
            }
        }
        Some(Err(_)) => *watch = None,
        None => {}
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
        let regions = crate::moves::regions_of(service);
        // Before this round assigns anything: its first pass must see only what the
        // previous master left unclaimed.
        ownership.reassign_unclaimed(&regions);
        if let Err(e) = ownership.assign_orphans(&regions) {
            tracing::warn!(error = %e, "cannot reassign the regions of a dead server");
        }
        if let Some(moves) = ownership.moves() {
            moves.split_requested();
            moves.balance_step();
        }
        ownership.retire_replayed_streams(&regions);
        ownership.forget_uncataloged(directory);
    } else if let Err(e) = directory.sync_with_catalog() {
        tracing::warn!(error = %e, "cannot follow the catalog");
    }
    match directory.refresh_placements() {
        Ok(0) => {}
        Ok(moved) => tracing::info!(regions = moved, "regions placed again"),
        Err(e) => tracing::warn!(error = %e, "a region could not be opened here"),
    }
}
