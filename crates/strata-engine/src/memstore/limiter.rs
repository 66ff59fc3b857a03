//! The process-wide memstore memory limit. Writers reserve room before inserting; above the
//! high watermark they wait for flushes to free memory, and after a timeout they fail with a
//! clear "too busy" error instead of growing without bound.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::util::clock::Clock;
use crate::util::wait::wait_until;

/// Tracks the bytes held by every memstore of the process.
#[derive(Debug)]
pub struct MemoryLimiter {
    limit: u64,
    used: Mutex<u64>,
    freed: Condvar,
    wait_timeout: Duration,
    /// Times the wait.
    clock: Arc<dyn Clock>,
}

impl MemoryLimiter {
    /// A limiter allowing `limit` bytes; writers wait at most `wait_timeout` of `clock`'s
    /// time for room.
    pub fn new(limit: u64, wait_timeout: Duration, clock: Arc<dyn Clock>) -> Self {
        MemoryLimiter {
            limit,
            used: Mutex::new(0),
            freed: Condvar::new(),
            wait_timeout,
            clock,
        }
    }

    /// Bytes currently charged.
    pub fn used(&self) -> u64 {
        *self.used.lock()
    }

    /// True once usage passes the level at which flushes should start (half the limit), so
    /// flushing begins well before writers have to wait.
    pub fn should_flush(&self) -> bool {
        self.used() >= self.limit / 2
    }

    /// Waits until usage is under the limit, or fails with `TooBusy` after the timeout.
    /// `on_wait` runs once if the caller has to wait (it asks for flushes).
    pub fn wait_for_room(&self, on_wait: &dyn Fn()) -> Result<()> {
        let mut used = self.used.lock();
        if *used < self.limit {
            return Ok(());
        }
        drop(used);
        on_wait();
        let clock = self.clock.as_ref();
        let deadline = clock.now() + self.wait_timeout;
        used = self.used.lock();
        while *used >= self.limit {
            if wait_until(&self.freed, &mut used, clock, deadline) && *used >= self.limit {
                return Err(Error::TooBusy(format!(
                    "memstores hold {} bytes, over the {} byte limit, and flushes did not free \
                     room within {:?}",
                    *used, self.limit, self.wait_timeout
                )));
            }
        }
        Ok(())
    }

    /// Charges `bytes` (after they were inserted).
    pub fn charge(&self, bytes: u64) {
        *self.used.lock() += bytes;
    }

    /// Releases `bytes` (after a flush) and wakes waiting writers.
    pub fn release(&self, bytes: u64) {
        let mut used = self.used.lock();
        *used = used.saturating_sub(bytes);
        drop(used);
        self.freed.notify_all();
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // these tests race real threads in real time
mod tests {
    use super::*;
    use crate::util::clock::system;

    fn limiter(limit: u64, wait_timeout: Duration) -> MemoryLimiter {
        MemoryLimiter::new(limit, wait_timeout, system())
    }

    #[test]
    fn under_limit_passes_without_waiting() {
        let l = limiter(100, Duration::from_secs(5));
        l.charge(99);
        l.wait_for_room(&|| panic!("must not wait")).unwrap();
    }

    #[test]
    fn over_limit_times_out_with_too_busy() {
        let l = limiter(100, Duration::from_millis(50));
        l.charge(150);
        let err = l.wait_for_room(&|| {}).unwrap_err();
        assert!(matches!(err, Error::TooBusy(_)), "{err}");
    }

    #[test]
    fn release_wakes_a_waiting_writer() {
        let l = Arc::new(limiter(100, Duration::from_secs(10)));
        l.charge(150);
        let l2 = Arc::clone(&l);
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            l2.release(100);
        });
        l.wait_for_room(&|| {}).unwrap();
        assert_eq!(l.used(), 50);
        releaser.join().unwrap();
    }
}
