//! Time behind a trait, so tests control TTL expiry, server-assigned timestamps,
//! leases and timeouts. clippy's `disallowed-methods` bans `SystemTime::now`,
//! `Instant::now` and `thread::sleep` everywhere else.
//!
//! A clock answers two questions: the wall-clock time (HBase's timestamps, TTLs) and
//! a monotonic instant (deadlines, leases, durations). It also sleeps, so that a test
//! clock can turn a sleep into an instant jump instead of a real wait.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A source of wall-clock and monotonic time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Current time in milliseconds since the epoch.
    fn now_millis(&self) -> i64;

    /// The current monotonic instant: never goes backwards, unaffected by wall-clock
    /// steps. Use it for deadlines, leases and durations.
    fn now(&self) -> Instant;

    /// Blocks the calling thread for `duration` of this clock's time.
    fn sleep(&self, duration: Duration);

    /// The time since `start` (an instant this clock gave), as `Instant::elapsed` would
    /// tell it on this clock; zero if `start` is later than now.
    fn elapsed(&self, start: Instant) -> Duration {
        self.now().saturating_duration_since(start)
    }
}

/// The real system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[allow(clippy::disallowed_methods)] // the one place the system clock is read
    fn now_millis(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }

    #[allow(clippy::disallowed_methods)] // the one place the monotonic clock is read
    fn now(&self) -> Instant {
        Instant::now()
    }

    #[allow(clippy::disallowed_methods)] // the one place a thread sleeps for real
    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// The shared system clock, for code that has no clock injected (command-line tools,
/// benchmarks and adapters' own bookkeeping).
pub fn system() -> std::sync::Arc<dyn Clock> {
    static SYSTEM: OnceLock<std::sync::Arc<dyn Clock>> = OnceLock::new();
    SYSTEM
        .get_or_init(|| std::sync::Arc::new(SystemClock))
        .clone()
}

/// A clock that only moves when told to; for tests. Its monotonic instant starts at
/// the moment the clock is made and moves with `advance`; `set` moves only the wall
/// clock, as a wall-clock step would. `sleep` advances both and returns at once.
#[derive(Debug)]
pub struct ManualClock {
    now: AtomicI64,
    base: Instant,
    elapsed_nanos: AtomicU64,
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new(0)
    }
}

impl ManualClock {
    /// A clock reading `start_millis`.
    pub fn new(start_millis: i64) -> Self {
        ManualClock {
            now: AtomicI64::new(start_millis),
            base: SystemClock.now(),
            elapsed_nanos: AtomicU64::new(0),
        }
    }

    /// Moves the clock forward by `millis`.
    pub fn advance(&self, millis: i64) {
        self.now.fetch_add(millis, Ordering::SeqCst);
        let nanos = u64::try_from(millis.max(0)).unwrap_or(0) * 1_000_000;
        self.elapsed_nanos.fetch_add(nanos, Ordering::SeqCst);
    }

    /// Sets the wall clock to `millis`; the monotonic instant does not move.
    pub fn set(&self, millis: i64) {
        self.now.store(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }

    fn now(&self) -> Instant {
        self.base + Duration::from_nanos(self.elapsed_nanos.load(Ordering::SeqCst))
    }

    fn sleep(&self, duration: Duration) {
        let nanos = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
        self.now
            .fetch_add((nanos / 1_000_000) as i64, Ordering::SeqCst);
        self.elapsed_nanos.fetch_add(nanos, Ordering::SeqCst);
        std::thread::yield_now();
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // real time and randomness in these tests
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let clock = ManualClock::new(1_000);
        let start = clock.now();
        assert_eq!(clock.now(), start);
        clock.advance(250);
        assert_eq!(clock.now_millis(), 1_250);
        assert_eq!(clock.now() - start, Duration::from_millis(250));
        clock.set(10);
        assert_eq!(clock.now_millis(), 10);
        assert_eq!(clock.now() - start, Duration::from_millis(250));
        clock.sleep(Duration::from_millis(5));
        assert_eq!(clock.now() - start, Duration::from_millis(255));
        assert_eq!(clock.elapsed(start), Duration::from_millis(255));
        assert_eq!(clock.now_millis(), 15);
    }

    #[test]
    fn the_system_clock_is_monotonic() {
        let clock = system();
        let a = clock.now();
        clock.sleep(Duration::from_millis(1));
        assert!(clock.now() > a);
    }
}
