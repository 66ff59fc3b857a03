//! The thread that keeps a server's lease alive: a keepalive every TTL/3, so two can fail
//! in a row (a slow etcd, a lost packet) before the deadline is at risk. It never decides
//! anything itself: the lease's deadline moves only on success, and whoever acknowledges
//! writes checks [`Lease::check`]. When etcd says the lease is gone, the loop ends and
//! reports it; the server must register again under a new lease.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use strata_runtime::clock::Clock;
use strata_runtime::thread;

use crate::coordinator::LeaseRenewal;
use crate::error::{Error, Result};
use crate::lease::Lease;

/// A running keepalive loop; dropping it does not stop it, [`KeepAlive::stop`] does.
#[derive(Debug)]
pub struct KeepAlive {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Result<()>>,
}

impl KeepAlive {
    /// Starts keeping `lease` alive through `coord`, timing on `clock`.
    pub fn start(
        coord: Arc<dyn LeaseRenewal>,
        lease: Arc<Lease>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let interval = lease.ttl() / 3;
        let name = format!("strata-lease-{:x}", lease.id());
        let handle = thread::spawn(name, move || run(&*coord, &lease, &*clock, interval, &flag))
            .map_err(|e| {
                Error::InvalidArgument(format!("cannot start the keepalive thread: {e}"))
            })?;
        Ok(KeepAlive { stop, handle })
    }

    /// True once the loop ended (stopped, or the lease is gone).
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    /// Stops the loop and returns how it ended.
    pub fn stop(self) -> Result<()> {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().unwrap_or_else(|_| {
            Err(Error::InvalidArgument(
                "the keepalive thread panicked".into(),
            ))
        })
    }
}

fn run(
    coord: &dyn LeaseRenewal,
    lease: &Lease,
    clock: &dyn Clock,
    interval: Duration,
    stop: &AtomicBool,
) -> Result<()> {
    while !stop.load(Ordering::SeqCst) {
        match coord.keep_alive(lease) {
            Ok(()) => {}
            Err(e) if e.is_lease_expired() => return Err(e),
            // etcd unreachable: keep trying; the deadline is what protects the data.
            Err(e) => tracing::warn!(lease = lease.id(), error = %e, "lease keepalive failed"),
        }
        clock.sleep(interval);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use strata_runtime::clock::ManualClock;

    use super::*;
    use crate::coordinator::CoordOptions;
    use crate::mem::MemKv;
    use crate::MemCoordinator;

    #[test]
    fn the_loop_moves_the_deadline_and_ends_when_etcd_drops_the_lease() {
        let clock = Arc::new(ManualClock::new(0));
        let kv = MemKv::new(clock.clone());
        let coord = Arc::new(
            MemCoordinator::new(kv.clone(), clock.clone(), CoordOptions::new("k")).unwrap(),
        );
        let lease = coord.grant_lease().unwrap();
        let first = lease.deadline().unwrap();
        let keeper = KeepAlive::start(coord.clone(), lease.clone(), clock.clone()).unwrap();
        // The loop's sleeps move the manual clock; wait until a renewal shows.
        while lease.deadline().unwrap() <= first + Duration::from_secs(5) {
            std::thread::yield_now();
        }
        keeper.stop().unwrap();

        let keeper = KeepAlive::start(coord.clone(), lease.clone(), clock).unwrap();
        kv.revoke_lease_for_test(lease.id());
        while !keeper.is_finished() {
            std::thread::yield_now();
        }
        assert!(keeper.stop().unwrap_err().is_lease_expired());
        assert!(lease.deadline().is_none());
    }
}
