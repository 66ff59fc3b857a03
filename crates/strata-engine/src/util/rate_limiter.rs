//! A token-bucket I/O rate limiter, used to cap compaction write bandwidth so background
//! work does not starve foreground reads and flushes of disk throughput.
//!
//! The bucket refills at the configured rate and holds at most [`BURST`] worth of bytes, so
//! an idle limiter lets a short burst through at full speed. A request larger than the
//! bucket is admitted at once but leaves the bucket in debt, and the caller sleeps until
//! the debt is paid; later callers queue behind that debt. Reserving under the lock and
//! sleeping outside it keeps the limiter fair and never blocks other threads on the lock.

use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// How much unused allowance may accumulate: this much time's worth of bytes.
pub const BURST: Duration = Duration::from_millis(100);

/// Limits the byte rate of its callers, across threads.
#[derive(Debug)]
pub struct RateLimiter {
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    /// Bytes per second; `None` means unlimited.
    rate: Option<u64>,
    /// Available bytes; negative while callers are sleeping off a debt.
    tokens: f64,
    /// When `tokens` was last brought up to date.
    last_refill: Instant,
}

impl Bucket {
    fn capacity(rate: u64) -> f64 {
        rate as f64 * BURST.as_secs_f64()
    }

    /// Adds the allowance earned since the last refill, up to the burst capacity.
    fn refill(&mut self, now: Instant) {
        if let Some(rate) = self.rate {
            let earned = now.duration_since(self.last_refill).as_secs_f64() * rate as f64;
            self.tokens = (self.tokens + earned).min(Self::capacity(rate));
        }
        self.last_refill = now;
    }
}

/// `Some(0)` would block forever; treat it, like `None`, as "no limit".
fn normalize(rate: Option<u64>) -> Option<u64> {
    rate.filter(|&r| r > 0)
}

impl RateLimiter {
    /// A limiter allowing `bytes_per_second` (`None` or `Some(0)`: unlimited). It starts
    /// with a full burst allowance.
    pub fn new(bytes_per_second: Option<u64>) -> Self {
        let rate = normalize(bytes_per_second);
        RateLimiter {
            bucket: Mutex::new(Bucket {
                rate,
                tokens: rate.map_or(0.0, Bucket::capacity),
                last_refill: Instant::now(),
            }),
        }
    }

    /// The current limit in bytes per second, `None` when unlimited.
    pub fn rate(&self) -> Option<u64> {
        self.bucket.lock().rate
    }

    /// Changes the limit. Allowance already earned carries over (capped at the new burst);
    /// callers already sleeping finish their current wait.
    pub fn set_rate(&self, bytes_per_second: Option<u64>) {
        let mut bucket = self.bucket.lock();
        bucket.refill(Instant::now());
        bucket.rate = normalize(bytes_per_second);
        bucket.tokens = match bucket.rate {
            Some(rate) => bucket.tokens.min(Bucket::capacity(rate)),
            None => 0.0,
        };
    }

    /// Blocks until `bytes` may be written.
    pub fn acquire(&self, bytes: u64) {
        let wait = self.reserve(bytes);
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
    }

    /// Takes `bytes` from the bucket and returns how long the caller must wait before
    /// using them (zero if they are available now).
    pub fn reserve(&self, bytes: u64) -> Duration {
        let mut bucket = self.bucket.lock();
        let Some(rate) = bucket.rate else {
            return Duration::ZERO;
        };
        bucket.refill(Instant::now());
        bucket.tokens -= bytes as f64;
        if bucket.tokens >= 0.0 {
            return Duration::ZERO;
        }
        // An absurd debt (petabytes at a few bytes per second) saturates instead of
        // panicking in the Duration conversion.
        Duration::try_from_secs_f64(-bucket.tokens / rate as f64).unwrap_or(Duration::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn unlimited_never_waits() {
        for rate in [None, Some(0)] {
            let limiter = RateLimiter::new(rate);
            assert_eq!(limiter.rate(), None);
            let start = Instant::now();
            for _ in 0..1000 {
                assert_eq!(limiter.reserve(u64::MAX), Duration::ZERO);
                limiter.acquire(1 << 40);
            }
            assert!(start.elapsed() < Duration::from_secs(1));
        }
    }

    #[test]
    fn burst_is_free_and_debt_is_charged_at_the_rate() {
        let limiter = RateLimiter::new(Some(1_000_000));
        assert_eq!(
            limiter.reserve(100_000),
            Duration::ZERO,
            "a full burst is free"
        );
        // The bucket is empty now; 500 kB more at 1 MB/s is about half a second of debt
        // (a little less, since some time passed and refilled a few bytes).
        let wait = limiter.reserve(500_000);
        // Lower bounds leave room for a stalled test thread refilling the bucket meanwhile.
        assert!(wait > Duration::from_millis(300) && wait <= Duration::from_millis(500));
        // The next caller queues behind that debt.
        assert!(limiter.reserve(1) > Duration::from_millis(300));
    }

    #[test]
    fn huge_requests_saturate_instead_of_panicking() {
        let limiter = RateLimiter::new(Some(1));
        assert!(limiter.reserve(u64::MAX) > Duration::from_secs(1 << 40));
    }

    #[test]
    fn limited_acquire_takes_at_least_the_expected_time() {
        let limiter = RateLimiter::new(Some(2_000_000));
        let start = Instant::now();
        for _ in 0..20 {
            limiter.acquire(50_000); // 1 MB in total, 200 kB of it covered by the burst
        }
        // (1 MB - 200 kB burst) / 2 MB/s = 400 ms; allow slack for timer granularity.
        assert!(
            start.elapsed() >= Duration::from_millis(380),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn threads_share_one_budget() {
        let limiter = Arc::new(RateLimiter::new(Some(4_000_000)));
        let start = Instant::now();
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let limiter = Arc::clone(&limiter);
                std::thread::spawn(move || (0..10).for_each(|_| limiter.acquire(50_000)))
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        // (2 MB - 400 kB burst) / 4 MB/s = 400 ms.
        assert!(
            start.elapsed() >= Duration::from_millis(380),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn set_rate_switches_between_limited_and_unlimited() {
        let limiter = RateLimiter::new(None);
        limiter.set_rate(Some(1_000));
        assert_eq!(limiter.rate(), Some(1_000));
        // Switching on starts with an empty bucket, so any request waits.
        assert!(limiter.reserve(500) >= Duration::from_millis(300));
        limiter.set_rate(None);
        assert_eq!(limiter.reserve(1 << 30), Duration::ZERO);
        // Lowering the rate caps the earned allowance at the new, smaller burst.
        let limiter = RateLimiter::new(Some(1_000_000));
        limiter.set_rate(Some(1_000));
        assert!(limiter.reserve(1_000) >= Duration::from_millis(700));
    }
}
