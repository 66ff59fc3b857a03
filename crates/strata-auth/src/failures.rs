//! Failed authentications per source address. An address that failed
//! [`MAX_FAILURES_PER_MINUTE`] times within a minute is refused without its credentials
//! being looked at until that minute has passed, so a token cannot be guessed at speed and
//! a flood of bad attempts costs no hashing. Addresses are forgotten once their minute
//! ends; the table is bounded.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_runtime::clock::Clock;

pub const MAX_FAILURES_PER_MINUTE: u32 = 20;
const WINDOW: Duration = Duration::from_secs(60);
/// Past this many addresses, the oldest windows are dropped first.
const MAX_ADDRESSES: usize = 65_536;

/// Failed attempts by source address.
#[derive(Debug)]
pub struct FailureLimiter {
    clock: Arc<dyn Clock>,
    windows: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl FailureLimiter {
    pub fn new(clock: Arc<dyn Clock>) -> FailureLimiter {
        FailureLimiter {
            clock,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `address` may try now.
    pub fn may_try(&self, address: IpAddr) -> bool {
        let now = self.clock.now();
        let windows = self.windows.lock();
        match windows.get(&address) {
            Some((start, count)) => {
                now.saturating_duration_since(*start) >= WINDOW || *count < MAX_FAILURES_PER_MINUTE
            }
            None => true,
        }
    }

    /// Counts a failure of `address`.
    pub fn failed(&self, address: IpAddr) {
        let now = self.clock.now();
        let mut windows = self.windows.lock();
        if windows.len() >= MAX_ADDRESSES && !windows.contains_key(&address) {
            windows.retain(|_, (start, _)| now.saturating_duration_since(*start) < WINDOW);
            if windows.len() >= MAX_ADDRESSES {
                let oldest = windows
                    .iter()
                    .min_by_key(|(_, (start, _))| *start)
                    .map(|(a, _)| *a);
                if let Some(oldest) = oldest {
                    windows.remove(&oldest);
                }
            }
        }
        let entry = windows.entry(address).or_insert((now, 0));
        if now.saturating_duration_since(entry.0) >= WINDOW {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_runtime::clock::ManualClock;

    #[test]
    fn an_address_is_held_off_after_its_failures_until_its_minute_ends() {
        let clock = Arc::new(ManualClock::new(0));
        let limiter = FailureLimiter::new(Arc::clone(&clock) as Arc<dyn Clock>);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        for _ in 0..MAX_FAILURES_PER_MINUTE {
            assert!(limiter.may_try(a));
            limiter.failed(a);
        }
        assert!(!limiter.may_try(a));
        assert!(limiter.may_try(b), "another address is not held off");
        clock.advance(59_000);
        assert!(!limiter.may_try(a));
        clock.advance(1_000);
        assert!(limiter.may_try(a));
        limiter.failed(a);
        assert!(limiter.may_try(a), "a new minute starts counting again");
    }
}
