//! A token-bucket I/O rate limiter, used to cap compaction write bandwidth so background
//! work does not starve foreground reads and flushes of disk throughput.
//!
//! The bucket refills at the configured rate and holds at most [`BURST`] worth of bytes, so
//! an idle limiter lets a short burst through at full speed. A request larger than the
//! bucket is admitted at once but leaves the bucket in debt, and the caller sleeps until
//! the debt is paid; later callers queue behind that debt. Reserving under the lock and
//! sleeping outside it keeps the limiter fair and never blocks other threads on the lock.
//! Time is the injected clock's, so tests run the limiter on a manual clock.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::util::clock::Clock;

/// How much unused allowance may accumulate: this much time's worth of bytes.
pub const BURST: Duration = Duration::from_millis(100);

/// Limits the byte rate of its callers, across threads.
#[derive(Debug)]
pub struct RateLimiter {
    bucket: Mutex<Bucket>,
    /// Measures the refills and does the sleeping.
    clock: Arc<dyn Clock>,
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
            let elapsed = now.saturating_duration_since(self.last_refill);
            let earned = elapsed.as_secs_f64() * rate as f64;
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
    /// A limiter allowing `bytes_per_second` (`None` or `Some(0)`: unlimited) on `clock`'s
    /// time. It starts with a full burst allowance.
    pub fn new(bytes_per_second: Option<u64>, clock: Arc<dyn Clock>) -> Self {
        let rate = normalize(bytes_per_second);
        RateLimiter {
            bucket: Mutex::new(Bucket {
                rate,
                tokens: rate.map_or(0.0, Bucket::capacity),
                last_refill: clock.now(),
            }),
            clock,
        }
    }

    /// The current limit in bytes per second, `None` when unlimited.
    #[cfg(test)]
    pub fn rate(&self) -> Option<u64> {
        self.bucket.lock().rate
    }

    /// Changes the limit. Allowance already earned carries over (capped at the new burst);
    /// callers already sleeping finish their current wait.
    #[cfg(test)]
    pub fn set_rate(&self, bytes_per_second: Option<u64>) {
        let mut bucket = self.bucket.lock();
        bucket.refill(self.clock.now());
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
            self.clock.sleep(wait);
        }
    }

    /// Takes `bytes` from the bucket and returns how long the caller must wait before
    /// using them (zero if they are available now).
    pub fn reserve(&self, bytes: u64) -> Duration {
        let mut bucket = self.bucket.lock();
        let Some(rate) = bucket.rate else {
            return Duration::ZERO;
        };
        bucket.refill(self.clock.now());
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
    use crate::util::clock::ManualClock;

    fn on_manual_clock(rate: Option<u64>) -> (RateLimiter, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(0));
        (RateLimiter::new(rate, clock.clone()), clock)
    }

    /// `actual` is `expected` give or take the float rounding of the token arithmetic.
    fn about(actual: Duration, expected: Duration) -> bool {
        actual.abs_diff(expected) < Duration::from_micros(10)
    }

    #[test]
    fn unlimited_never_waits() {
        for rate in [None, Some(0)] {
            let (limiter, clock) = on_manual_clock(rate);
            let start = clock.now();
            assert_eq!(limiter.rate(), None);
            for _ in 0..1000 {
                assert_eq!(limiter.reserve(u64::MAX), Duration::ZERO);
                limiter.acquire(1 << 40);
            }
            assert_eq!(clock.now(), start, "acquire never slept");
        }
    }

    #[test]
    fn burst_is_free_and_debt_is_charged_at_the_rate() {
        let (limiter, _clock) = on_manual_clock(Some(1_000_000));
        assert_eq!(
            limiter.reserve(100_000),
            Duration::ZERO,
            "a full burst is free"
        );
        // The bucket is empty now: 500 kB more at 1 MB/s is half a second of debt.
        let wait = limiter.reserve(500_000);
        assert!(about(wait, Duration::from_millis(500)), "{wait:?}");
        // The next caller queues behind that debt.
        assert!(limiter.reserve(1) > Duration::from_millis(500));
    }

    #[test]
    fn the_bucket_refills_at_the_rate_up_to_the_burst() {
        let (limiter, clock) = on_manual_clock(Some(1_000_000));
        assert_eq!(limiter.reserve(100_000), Duration::ZERO);
        clock.advance(50);
        assert_eq!(limiter.reserve(50_000), Duration::ZERO, "50 ms earn 50 kB");
        let wait = limiter.reserve(1_000);
        assert!(about(wait, Duration::from_millis(1)), "{wait:?}");
        // A long idle spell earns no more than one burst.
        clock.advance(60_000);
        assert_eq!(limiter.reserve(100_000), Duration::ZERO);
        let wait = limiter.reserve(100_000);
        assert!(about(wait, Duration::from_millis(100)), "{wait:?}");
    }

    #[test]
    fn huge_requests_saturate_instead_of_panicking() {
        let (limiter, _clock) = on_manual_clock(Some(1));
        assert!(limiter.reserve(u64::MAX) > Duration::from_secs(1 << 40));
    }

    #[test]
    fn limited_acquire_sleeps_off_the_debt() {
        let (limiter, clock) = on_manual_clock(Some(2_000_000));
        let start = clock.now();
        for _ in 0..20 {
            limiter.acquire(50_000); // 1 MB in total, 200 kB of it covered by the burst
        }
        // (1 MB - 200 kB burst) / 2 MB/s = 400 ms of the limiter's clock.
        let slept = clock.now() - start;
        assert!(about(slept, Duration::from_millis(400)), "{slept:?}");
    }

    #[test]
    fn threads_share_one_budget() {
        let (limiter, _clock) = on_manual_clock(Some(4_000_000));
        let waits: Vec<Duration> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..10).map(|_| limiter.reserve(50_000)).max()))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap().unwrap())
                .collect()
        });
        // 2 MB against a 400 kB burst at 4 MB/s: whoever reserved last waits 400 ms.
        let longest = waits.into_iter().max().unwrap();
        assert!(about(longest, Duration::from_millis(400)), "{longest:?}");
    }

    #[test]
    fn set_rate_switches_between_limited_and_unlimited() {
        let (limiter, _clock) = on_manual_clock(None);
        limiter.set_rate(Some(1_000));
        assert_eq!(limiter.rate(), Some(1_000));
        // Switching on starts with an empty bucket, so any request waits.
        let wait = limiter.reserve(500);
        assert!(about(wait, Duration::from_millis(500)), "{wait:?}");
        limiter.set_rate(None);
        assert_eq!(limiter.reserve(1 << 30), Duration::ZERO);
        // Lowering the rate caps the earned allowance at the new, smaller burst.
        let (limiter, _clock) = on_manual_clock(Some(1_000_000));
        limiter.set_rate(Some(1_000));
        let wait = limiter.reserve(1_000);
        assert!(about(wait, Duration::from_millis(900)), "{wait:?}");
    }
}
