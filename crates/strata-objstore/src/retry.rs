//! How long to keep trying a request the store may answer later. Sleeps go through the
//! injected [`Clock`], so tests retry instantly and deterministically.

use std::sync::Arc;
use std::time::Duration;

use strata_runtime::clock::{self, Clock};

use crate::error::{Error, Result};

/// A bounded exponential backoff.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts in all, the first included; at least 1.
    pub attempts: u32,
    /// The wait before the second attempt; doubled each time up to `max_backoff`.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// Where waits happen.
    pub clock: Arc<dyn Clock>,
}

impl Default for RetryPolicy {
    /// Six attempts over about 1.5 s: long enough to ride out a dropped connection or a
    /// 503 "slow down", short enough that a dead store fails the write (and its callers)
    /// well inside a client timeout.
    // The default for callers with no clock of their own; `with_clock` injects one.
    #[allow(clippy::disallowed_methods)]
    fn default() -> Self {
        RetryPolicy {
            attempts: 6,
            initial_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_millis(800),
            clock: clock::system(),
        }
    }
}

impl RetryPolicy {
    /// The default policy sleeping on `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        RetryPolicy {
            clock,
            ..RetryPolicy::default()
        }
    }

    /// Runs `attempt` until it succeeds, fails for good, or the attempts run out; only
    /// retryable errors ([`Error::kind`]) are retried. The last error is returned.
    pub fn run<T>(&self, mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
        let mut backoff = self.initial_backoff;
        let mut tries = 1;
        loop {
            match attempt() {
                Err(e) if is_transient(&e) && tries < self.attempts.max(1) => {
                    tracing::debug!(error = %e, tries, "object store request failed; retrying");
                    self.clock.sleep(backoff);
                    backoff = (backoff * 2).min(self.max_backoff);
                    tries += 1;
                }
                other => return other,
            }
        }
    }
}

/// Only a store that did not answer is worth asking again; `Fenced` is final.
fn is_transient(e: &Error) -> bool {
    matches!(e, Error::Unavailable { .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_runtime::clock::ManualClock;

    fn unavailable() -> Error {
        Error::Unavailable {
            store: "memory://".into(),
            op: "get",
            path: "k".into(),
            reason: "timeout".into(),
        }
    }

    #[test]
    fn retries_transient_errors_then_gives_up() {
        let clock = Arc::new(ManualClock::new(0));
        let policy = RetryPolicy::with_clock(clock.clone());
        let mut calls = 0;
        let result: Result<()> = policy.run(|| {
            calls += 1;
            Err(unavailable())
        });
        assert!(result.is_err());
        assert_eq!(calls, 6);
        assert_eq!(clock.now_millis(), 50 + 100 + 200 + 400 + 800);
    }

    #[test]
    fn does_not_retry_final_errors() {
        let policy = RetryPolicy::with_clock(Arc::new(ManualClock::new(0)));
        let mut calls = 0;
        let result: Result<()> = policy.run(|| {
            calls += 1;
            Err(Error::NotFound("x".into()))
        });
        assert!(result.is_err());
        assert_eq!(calls, 1);
        let mut calls = 0;
        let ok = policy.run(|| {
            calls += 1;
            if calls < 3 {
                Err(unavailable())
            } else {
                Ok(calls)
            }
        });
        assert_eq!(ok.unwrap(), 3);
    }
}
