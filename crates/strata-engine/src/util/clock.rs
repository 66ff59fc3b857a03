//! Wall-clock time behind a trait, so tests control TTL expiry and server-assigned
//! timestamps. clippy's `disallowed-methods` bans `SystemTime::now` everywhere else.

use std::sync::atomic::{AtomicI64, Ordering};

/// A source of wall-clock milliseconds since the Unix epoch (HBase's timestamp unit).
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Current time in milliseconds since the epoch.
    fn now_millis(&self) -> i64;
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
}

/// A clock that only moves when told to; for tests.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicI64,
}

impl ManualClock {
    /// A clock reading `start_millis`.
    pub fn new(start_millis: i64) -> Self {
        ManualClock {
            now: AtomicI64::new(start_millis),
        }
    }

    /// Moves the clock forward by `millis`.
    pub fn advance(&self, millis: i64) {
        self.now.fetch_add(millis, Ordering::SeqCst);
    }

    /// Sets the clock to `millis`.
    pub fn set(&self, millis: i64) {
        self.now.store(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
}
