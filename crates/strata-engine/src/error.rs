//! The engine's one error type. Corruption is its own kind so that callers (and operators)
//! can tell damaged bytes apart from a failing disk or a bad request.

use std::path::PathBuf;

/// Everything that can go wrong inside the storage engine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O error from the filesystem, with the path it concerned.
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
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
}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Builds an I/O error for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
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
        matches!(self, Error::Corruption { .. })
    }
}
