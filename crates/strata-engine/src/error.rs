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

/// What a caller can do about an [`Error`]: the workspace's one kind (`strata-runtime`).
pub use strata_runtime::ErrorKind;

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

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
    fn each_error_says_what_a_caller_can_do() {
        let io = Error::io("/x", std::io::Error::other("disk"));
        assert_eq!(io.kind(), ErrorKind::Io);
        assert_eq!(Error::WalFenced("s".into()).kind(), ErrorKind::Io);
        assert_eq!(
            Error::corruption("/x", 1, "crc").kind(),
            ErrorKind::Corruption
        );
        assert_eq!(Error::TooBusy("memory".into()).kind(), ErrorKind::Busy);
        assert_eq!(
            Error::RegionSealed { region: 1 }.kind(),
            ErrorKind::Unavailable
        );
        assert!(Error::TooBusy("memory".into()).kind().is_retryable());
    }
}
