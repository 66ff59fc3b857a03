//! The crate's error type. Every error that comes from etcd names the endpoint, so an
//! operator can tell which coordination service is unreachable; every refusal names the
//! key or the lease it concerns. Callers switch on [`Error::kind`], the workspace's
//! [`ErrorKind`], so a write refused here reaches a client with the same meaning as a
//! write refused by the engine.

pub use strata_runtime::ErrorKind;

/// Everything that can go wrong coordinating through etcd (or its in-memory twin).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A bad argument (a server id with a '/', a TTL etcd cannot hold...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// What the request names does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// etcd could not be reached or did not answer in time. The outcome of a write that
    /// ends here is unknown; the caller retries after reading back.
    #[error("etcd at {endpoint} unavailable during {op}: {reason}")]
    Unavailable {
        endpoint: String,
        op: &'static str,
        reason: String,
    },
    /// This server's lease is past its deadline by its own monotonic clock, or etcd no
    /// longer holds it: it must not acknowledge writes nor serve strong reads until a
    /// keepalive succeeds again (or, when etcd dropped it, until the server registers
    /// under a new lease). Retryable. A [`crate::MetaKv`] answers a keepalive, a
    /// transaction or a revoke naming a lease etcd does not hold with this variant, the
    /// in-memory twin exactly as etcd, so no caller reads the lease's fate from a text.
    #[error("etcd lease {lease:#x} at {endpoint} is not valid: {detail}")]
    LeaseExpired {
        endpoint: String,
        lease: i64,
        detail: String,
    },
    /// A guarded transaction lost: the region's epoch moved (another owner, a split, a
    /// move) or the key was taken. Nothing was written; retry on the region's new owner.
    #[error("fenced: {0}")]
    Fenced(String),
    /// The caller is not (any longer) the elected master; nothing was written.
    #[error("not the master: {0}")]
    NotLeader(String),
    /// A stored value failed to decode.
    #[error("corrupt value at etcd key {key}: {reason}")]
    Corruption { key: String, reason: String },
    /// etcd refused the request for good.
    #[error("etcd at {endpoint} failed {op}: {reason}")]
    Io {
        endpoint: String,
        op: &'static str,
        reason: String,
    },
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// What a caller can do about the error. A lost epoch race or a lost leadership is
    /// `Unavailable`: the request may succeed elsewhere (the region's new owner, the new
    /// master), never here.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Unavailable { .. }
            | Error::LeaseExpired { .. }
            | Error::Fenced(_)
            | Error::NotLeader(_) => ErrorKind::Unavailable,
            Error::Corruption { .. } => ErrorKind::Corruption,
            Error::Io { .. } => ErrorKind::Io,
        }
    }

    /// True when a guarded transaction lost (stale epoch, taken key, lost leadership).
    pub fn is_fenced(&self) -> bool {
        matches!(self, Error::Fenced(_) | Error::NotLeader(_))
    }

    /// True when the server's own lease forbids the operation.
    pub fn is_lease_expired(&self) -> bool {
        matches!(self, Error::LeaseExpired { .. })
    }

    /// The error for `lease`, at `endpoint`, that may no longer be acted on.
    pub fn lease_expired(endpoint: &str, lease: i64, detail: impl Into<String>) -> Self {
        Error::LeaseExpired {
            endpoint: endpoint.to_owned(),
            lease,
            detail: detail.into(),
        }
    }

    /// Builds a corruption error for `key`.
    pub fn corruption(key: impl Into<String>, reason: impl ToString) -> Self {
        Error::Corruption {
            key: key.into(),
            reason: reason.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_retryable_and_name_etcd() {
        let down = Error::Unavailable {
            endpoint: "http://127.0.0.1:2379".into(),
            op: "txn",
            reason: "connection refused".into(),
        };
        assert!(down.kind().is_retryable());
        assert!(down.to_string().contains("etcd at http://127.0.0.1:2379"));
        assert!(Error::Fenced("x".into()).kind().is_retryable());
        assert!(Error::Fenced("x".into()).is_fenced());
        assert!(!Error::corruption("/k", "bad").kind().is_retryable());
    }
}
