//! The engine's one error type. Corruption is its own kind so that callers (and operators)
//! can tell damaged bytes apart from a failing disk or a bad request.

use std::path::PathBuf;
use std::sync::Arc;

/// Everything that can go wrong inside the storage engine. `Clone`, so one failure (a WAL
/// batch's) can be handed to every caller it concerns; callers that must decide what to do
/// switch on [`Error::kind`] rather than on variants or messages.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An I/O error from the filesystem, with the path it concerned.
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: Arc<std::io::Error>,
    },
    /// Stored bytes failed a checksum or could not be decoded. Never returned as data.
    #[error("corruption in {path} at offset {offset}: {reason}")]
    Corruption {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
    /// The caller asked for something invalid (a negative timestamp, an unknown family...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// Memory or file-count limits are exceeded and did not recover within the timeout.
    #[error("too busy: {0}")]
    TooBusy(String),
    /// The engine or region is closed or has failed and refuses further writes.
    #[error("closed: {0}")]
    Closed(String),
    /// A requested object (region, family, file) does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// A write refused because its region is being split or merged: nothing was applied,
    /// and the caller should route it again once the new regions are in place.
    #[error("closed: region {region} is sealed for a split or merge; retry on its new regions")]
    RegionSealed { region: u64 },
    /// The WAL's backend was sealed by another writer (a fencer took over this server's
    /// WAL object stream): this write and every later one are refused for good, nothing of
    /// them was acknowledged. Not retryable here: the process must stop serving, and its
    /// regions are replayed by their next owner.
    #[error("WAL fenced: {0}")]
    WalFenced(String),
}

/// What a caller can do about an [`Error`]: the one distinction adapters (and, later, a
/// router) act on. `Busy` and `Unavailable` are the retryable ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The request itself is wrong; retrying it cannot help.
    InvalidArgument,
    /// What the request names does not exist.
    NotFound,
    /// A capacity limit (memory, files awaiting compaction) did not clear in time; nothing
    /// was applied and the same request may succeed later.
    Busy,
    /// The region is being split or merged, or the engine is closed; nothing was applied and
    /// the request may succeed on the region's new owner or after a restart.
    Unavailable,
    /// Stored bytes are damaged.
    Corruption,
    /// The storage failed.
    Io,
}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl ErrorKind {
    /// Every kind, so that code in other crates mapping kinds (where the enum is
    /// non-exhaustive) can test that none falls to its fallback arm.
    pub const ALL: [ErrorKind; 6] = [
        ErrorKind::InvalidArgument,
        ErrorKind::NotFound,
        ErrorKind::Busy,
        ErrorKind::Unavailable,
        ErrorKind::Corruption,
        ErrorKind::Io,
    ];

    /// True when nothing was applied and the same request may succeed if sent again.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::Busy | ErrorKind::Unavailable)
    }
}

impl Error {
    /// Builds an I/O error for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source: Arc::new(source),
        }
    }

    /// True for a create-if-absent that found the file there (`FileSystem::create_new`).
    pub fn is_already_exists(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists)
    }

    /// Builds a corruption error for `path` at `offset`.
    pub fn corruption(path: impl Into<PathBuf>, offset: u64, reason: impl Into<String>) -> Self {
        Error::Corruption {
            path: path.into(),
            offset,
            reason: reason.into(),
        }
    }

    /// True for checksum and decoding failures.
    pub fn is_corruption(&self) -> bool {
        self.kind() == ErrorKind::Corruption
    }

    /// True for a write refused because its region is being split or merged.
    pub fn is_region_sealed(&self) -> bool {
        matches!(self, Error::RegionSealed { .. })
    }

    /// True when the WAL was fenced; see [`Error::WalFenced`].
    pub fn is_wal_fenced(&self) -> bool {
        matches!(self, Error::WalFenced(_))
    }

    /// What a caller can do about the error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            // Fenced: the WAL refuses for good, as a storage that failed does.
            Error::Io { .. } | Error::WalFenced(_) => ErrorKind::Io,
            Error::Corruption { .. } => ErrorKind::Corruption,
            Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::TooBusy(_) => ErrorKind::Busy,
            Error::RegionSealed { .. } | Error::Closed(_) => ErrorKind::Unavailable,
            Error::NotFound(_) => ErrorKind::NotFound,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_kind_once_in_order() {
        for (i, kind) in ErrorKind::ALL.into_iter().enumerate() {
            // Exhaustive here: a new kind does not compile until it has a place in ALL.
            let place = match kind {
                ErrorKind::InvalidArgument => 0,
                ErrorKind::NotFound => 1,
                ErrorKind::Busy => 2,
                ErrorKind::Unavailable => 3,
                ErrorKind::Corruption => 4,
                ErrorKind::Io => 5,
            };
            assert_eq!(place, i, "{kind:?}");
        }
    }
}
