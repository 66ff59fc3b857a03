//! A server's session with etcd, and the rule that makes acknowledgements safe.
//!
//! etcd expires a lease no earlier than TTL after its leader *received* the last
//! keepalive. The server cannot know when that was, but it knows when it *sent* it, which
//! is earlier. So its own deadline is `sent + TTL − margin` on its monotonic clock: while
//! `now < deadline`, etcd cannot have expired the lease, no other server can have been
//! given its regions, and acknowledging a write or serving a strong read is safe. The
//! margin absorbs clock-rate differences between this host and etcd's leader.

use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::kv::LeaseId;

/// Default lease TTL: the smallest etcd allows with its default election timing.
pub const DEFAULT_TTL: Duration = Duration::from_secs(2);

/// Default safety margin taken off the deadline.
pub const DEFAULT_MARGIN: Duration = Duration::from_millis(200);

/// A granted lease and this server's deadline for it.
#[derive(Debug)]
pub struct Lease {
    id: LeaseId,
    ttl: Duration,
    margin: Duration,
    endpoint: String,
    /// `None` once etcd said the lease is gone or it was revoked: never valid again.
    deadline: Mutex<Option<Instant>>,
}

impl Lease {
    /// A lease granted by a request sent at `sent`.
    pub(crate) fn new(
        id: LeaseId,
        ttl: Duration,
        margin: Duration,
        endpoint: &str,
        sent: Instant,
    ) -> Self {
        let lease = Lease {
            id,
            ttl,
            margin,
            endpoint: endpoint.to_owned(),
            deadline: Mutex::new(None),
        };
        lease.renewed(sent);
        lease
    }

    /// The etcd lease id.
    pub fn id(&self) -> LeaseId {
        self.id
    }

    /// The TTL asked for.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The last instant at which this server may still act on the lease, if any.
    pub fn deadline(&self) -> Option<Instant> {
        *self.deadline.lock()
    }

    /// True while `now` is before the deadline.
    pub fn is_valid(&self, now: Instant) -> bool {
        self.deadline().is_some_and(|deadline| now < deadline)
    }

    /// `Ok` while valid at `now`; otherwise the retryable error a write gets.
    pub fn check(&self, now: Instant) -> Result<()> {
        match self.deadline() {
            Some(deadline) if now < deadline => Ok(()),
            Some(deadline) => Err(self.expired(format!(
                "its deadline passed {} ms ago by this server's clock (no keepalive \
                 succeeded since); writes and strong reads are refused until one does",
                now.saturating_duration_since(deadline).as_millis()
            ))),
            None => Err(self.expired("etcd no longer holds it (expired or revoked)".into())),
        }
    }

    pub(crate) fn expired(&self, detail: String) -> Error {
        Error::lease_expired(&self.endpoint, self.id, detail)
    }

    /// A keepalive sent at `sent` succeeded: the deadline moves to `sent + TTL − margin`
    /// (never backwards: answers may arrive out of order).
    pub(crate) fn renewed(&self, sent: Instant) {
        let candidate = sent + self.ttl.saturating_sub(self.margin);
        let mut deadline = self.deadline.lock();
        if deadline.is_none_or(|current| candidate > current) {
            *deadline = Some(candidate);
        }
    }

    /// etcd no longer holds the lease.
    pub(crate) fn lost(&self) {
        *self.deadline.lock() = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_counts_from_the_send_time() {
        use strata_runtime::clock::{Clock, ManualClock};
        let start = ManualClock::new(0).now();
        let lease = Lease::new(7, DEFAULT_TTL, DEFAULT_MARGIN, "e", start);
        assert!(lease.is_valid(start + Duration::from_millis(1_799)));
        assert!(!lease.is_valid(start + Duration::from_millis(1_800)));
        lease.renewed(start + Duration::from_millis(500));
        assert!(lease.is_valid(start + Duration::from_millis(2_299)));
        lease.renewed(start); // a late answer to an older keepalive
        assert!(lease.is_valid(start + Duration::from_millis(2_299)));
        let err = lease.check(start + Duration::from_secs(3)).unwrap_err();
        assert!(err.is_lease_expired() && err.kind().is_retryable(), "{err}");
        lease.lost();
        assert!(!lease.is_valid(start));
    }
}
