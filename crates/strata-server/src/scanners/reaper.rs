//! The one expiry tick: a thread that drops scanners idle past their lease even when no
//! client touches scanners any more. Opens expire idle scanners too, but a server whose
//! last client abandoned its scanners would otherwise keep their pinned files forever.
//!
//! The thread starts with the first scanner (a service that never scans has none) and ends
//! when the registry is dropped: the drop wakes it, so it never outlives the service by a
//! period. It waits on a condition variable rather than sleeping on the service's clock, so
//! a test's manual clock is neither advanced by it nor needed to wake it; the lease itself
//! is judged on the service's clock.

use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::Shared;

/// How often idle scanners are looked for, at most (and a quarter of the lease at least).
const MAX_PERIOD: Duration = Duration::from_secs(5);
/// How often at least, so that a tiny test lease is not polled in a busy loop.
const MIN_PERIOD: Duration = Duration::from_millis(10);

/// The expiry thread's handle: started once, stopped on drop.
pub(super) struct Reaper {
    started: std::sync::Once,
    stop: Arc<Stop>,
}

impl Default for Reaper {
    fn default() -> Self {
        Reaper {
            started: std::sync::Once::new(),
            stop: Arc::default(),
        }
    }
}

/// Tells the thread to end, and wakes it to notice.
#[derive(Default)]
struct Stop {
    stopped: Mutex<bool>,
    wake: Condvar,
}

impl Reaper {
    /// Starts the thread if it is not running. If the system refuses a thread, scanners
    /// still expire whenever one is opened; the failure is logged, not fatal.
    pub fn ensure_started(&self, shared: &Arc<Shared>) {
        self.started.call_once(|| {
            let period = (shared.lease / 4).clamp(MIN_PERIOD, MAX_PERIOD);
            let shared = Arc::downgrade(shared);
            let stop = Arc::clone(&self.stop);
            let spawned = strata_runtime::thread::spawn("strata-scanner-lease", move || {
                run(&shared, &stop, period)
            });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "scanner expiry thread not started; scanners expire on open only");
            }
        });
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        *self.stop.stopped.lock() = true;
        self.stop.wake.notify_all();
    }
}

fn run(shared: &Weak<Shared>, stop: &Stop, period: Duration) {
    loop {
        {
            let mut stopped = stop.stopped.lock();
            if !*stopped {
                stop.wake.wait_for(&mut stopped, period);
            }
            if *stopped {
                return;
            }
        }
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let closed = shared.expire_idle();
        if closed > 0 {
            tracing::info!(closed, "closed scanners idle past their lease");
        }
    }
}
