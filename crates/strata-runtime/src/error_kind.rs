//! The base error kind: what a caller can do about an error.
//!
//! Every crate's typed errors answer `kind()` with this one enum (the engine's, the
//! object store's, etcd's, the service's), so an adapter maps an error to its protocol's
//! code by kind alone, refining only where its protocol has a finer code, and nothing is
//! translated between crates on the way up.

/// What a caller can do about an error. `Busy` and `Unavailable` are the retryable ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The request is wrong; retrying it cannot help.
    InvalidArgument,
    /// What the request names does not exist.
    NotFound,
    /// What the request would create exists already.
    AlreadyExists,
    /// The request is valid but the state does not allow it (a disabled table, a counter
    /// that is not 8 bytes wide).
    FailedPrecondition,
    /// A capacity limit (memory, files awaiting compaction, open scanners) did not clear in
    /// time; nothing was applied and the same request may succeed later.
    Busy,
    /// The region is being split, merged or moved, or the server is closing; nothing was
    /// applied and the request may succeed on the region's new owner or after a restart.
    Unavailable,
    /// Stored bytes are damaged.
    Corruption,
    /// The storage failed.
    Io,
    /// The caller lacks a permission (HBase's `AccessDeniedException`); nothing was done.
    PermissionDenied,
}

impl ErrorKind {
    /// Every kind, so that code in other crates mapping kinds (where the enum is
    /// non-exhaustive) can test that none falls to its fallback arm.
    pub const ALL: [ErrorKind; 9] = [
        ErrorKind::InvalidArgument,
        ErrorKind::NotFound,
        ErrorKind::AlreadyExists,
        ErrorKind::FailedPrecondition,
        ErrorKind::Busy,
        ErrorKind::Unavailable,
        ErrorKind::Corruption,
        ErrorKind::Io,
        ErrorKind::PermissionDenied,
    ];

    /// True when nothing was applied and the same request may succeed if sent again.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::Busy | ErrorKind::Unavailable)
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorKind;

    #[test]
    fn all_lists_every_kind_once_in_order() {
        for (i, kind) in ErrorKind::ALL.into_iter().enumerate() {
            // Exhaustive here: a new kind does not compile until it has a place in ALL.
            let place = match kind {
                ErrorKind::InvalidArgument => 0,
                ErrorKind::NotFound => 1,
                ErrorKind::AlreadyExists => 2,
                ErrorKind::FailedPrecondition => 3,
                ErrorKind::Busy => 4,
                ErrorKind::Unavailable => 5,
                ErrorKind::Corruption => 6,
                ErrorKind::Io => 7,
                ErrorKind::PermissionDenied => 8,
            };
            assert_eq!(place, i, "{kind:?}");
        }
    }

    #[test]
    fn only_busy_and_unavailable_are_retryable() {
        let retryable: Vec<ErrorKind> = ErrorKind::ALL
            .into_iter()
            .filter(|k| k.is_retryable())
            .collect();
        assert_eq!(retryable, [ErrorKind::Busy, ErrorKind::Unavailable]);
    }
}
