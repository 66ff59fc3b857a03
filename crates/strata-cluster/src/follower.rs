//! [`Follower`]: every server's loop that keeps its service in step with the cluster. Each
//! round reads the region directory and the live servers; the master then assigns the
//! regions whose owner is gone, and any other server follows the catalog the master
//! writes; finally every server places its regions again (opening those assigned to it,
//! releasing those assigned elsewhere, forwarding to new owners).
//!
//! A round runs when any key of the cluster changes (one etcd watch) and at least every
//! [`ROUND`]. A full round costs about five range reads (directory, members, decommission
//! marks, the catalog), so a server that is not the master skips them while its watch is
//! healthy and has seen no change: then only its placements are looked at again (a region
//! that failed to open is retried). It still reads everything at least every
//! [`FULL_ROUND`], and in the round after its watch (re)started, since a change made
//! between a round's reads and the watch's start reaches no watcher. The master always runs
//! full rounds: its grace periods and the balancer go by time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use strata_coord::kv::WatchReceiver;
use strata_server::Service;

use crate::ownership::Ownership;

/// The longest pause between rounds.
pub const ROUND: Duration = Duration::from_millis(200);

/// The longest pause between full rounds on a server that is not the master.
pub const FULL_ROUND: Duration = Duration::from_secs(1);

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
                changed = wait_for_change(&ownership, &mut watch);
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
/// (started again whenever it ended), then lets the burst settle. Returns false only when
/// the watch was running before the wait, is still healthy and saw nothing: the cluster's
/// keys are as the last round read them.
fn wait_for_change(ownership: &Ownership, watch: &mut Option<WatchReceiver>) -> bool {
    let clock = &ownership.node.clock;
    let started_now = watch.is_none();
    if started_now {
        *watch = ownership.node.coord.watch_cluster().ok();
    }
    let Some(receiver) = watch.as_ref() else {
        clock.sleep(ROUND);
        return true;
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
            true
        }
        Some(Err(_)) => {
            *watch = None;
            true
        }
        None => started_now,
    }
}

/// The part of a round that reads nothing from etcd: placing this server's regions again
/// from the view the last full round read.
fn place_again(service: &Service) {
    match service.directory().refresh_placements() {
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
    place_again(service);
}
