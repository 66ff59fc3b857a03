//! The crate's error type. Every error names the store URL or the object it concerns, so an
//! operator can tell which bucket (or which WAL object, at which offset) failed. Callers
//! switch on [`Error::kind`], the workspace's [`ErrorKind`], so a later WAL backend can hand
//! these errors to the engine's callers unchanged in meaning.

pub use strata_runtime::ErrorKind;

/// Everything that can go wrong talking to an object store or decoding WAL objects.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A bad store URL or a bad argument; retrying cannot help.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The object (or the stream) does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// The store failed in a way that may pass (timeout, connection refused, 5xx). Returned
    /// only after the retries ran out; the outcome of a write that ends here is *unknown*.
    #[error("object store {store} unavailable during {op} of {path}: {reason}")]
    Unavailable {
        store: String,
        op: &'static str,
        path: String,
        reason: String,
    },
    /// The store refused the request for good (permissions, unsupported operation...).
    #[error("object store {store} failed {op} of {path}: {reason}")]
    Io {
        store: String,
        op: &'static str,
        path: String,
        reason: String,
    },
    /// Stored bytes failed a checksum or could not be decoded.
    #[error("corruption in {object} at offset {offset}: {reason}")]
    Corruption {
        object: String,
        offset: u64,
        reason: String,
    },
    /// Another writer (a fencer) owns an id this stream needed: the stream is sealed and
    /// refuses every later write. Nothing of the refused batch was acknowledged.
    #[error("WAL stream {stream} is fenced: object {object_id} belongs to another writer")]
    Fenced { stream: String, object_id: u64 },
    /// The store's create-if-absent is not atomic, so it cannot fence a zombie writer.
    #[error("object store {store} refused: {detail}")]
    NonAtomicStore { store: String, detail: String },
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// What a caller can do about the error. `Fenced` is `Unavailable`: the write may
    /// succeed on the region's new owner, never on this stream.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidArgument(_) | Error::NonAtomicStore { .. } => ErrorKind::InvalidArgument,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Unavailable { .. } | Error::Fenced { .. } => ErrorKind::Unavailable,
            Error::Io { .. } => ErrorKind::Io,
            Error::Corruption { .. } => ErrorKind::Corruption,
        }
    }

    /// True when the stream was sealed by a fencer.
    pub fn is_fenced(&self) -> bool {
        matches!(self, Error::Fenced { .. })
    }

    /// Builds a corruption error for `object` at `offset`.
    pub fn corruption(object: impl Into<String>, offset: u64, reason: impl Into<String>) -> Self {
        Error::Corruption {
            object: object.into(),
            offset,
            reason: reason.into(),
        }
    }

    /// The engine's error with the same meaning, for the WAL backend seam: the engine's
    /// callers then see `Unavailable`, `Corruption`... exactly as for a local WAL, and a
    /// fenced stream as the engine's typed, non-retryable `WalFenced`.
    pub fn into_engine_error(self) -> strata_engine::Error {
        let message = self.to_string();
        match self {
            Error::InvalidArgument(_) | Error::NonAtomicStore { .. } => {
                strata_engine::Error::InvalidArgument(message)
            }
            Error::NotFound(_) => strata_engine::Error::NotFound(message),
            Error::Unavailable { .. } => strata_engine::Error::Closed(message),
            Error::Fenced { .. } => strata_engine::Error::WalFenced(message),
            Error::Io { path, .. } => {
                strata_engine::Error::io(path, std::io::Error::other(message))
            }
            Error::Corruption {
                object,
                offset,
                reason,
            } => strata_engine::Error::corruption(object, offset, reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_engine() {
        let fenced = Error::Fenced {
            stream: "s".into(),
            object_id: 3,
        };
        assert!(fenced.is_fenced());
        assert!(fenced.kind().is_retryable());
        assert!(!Error::corruption("o", 1, "bad").kind().is_retryable());
        let engine = Error::corruption("wal/x", 7, "crc").into_engine_error();
        assert!(engine.is_corruption());
        assert!(engine.to_string().contains("wal/x"), "{engine}");
    }
}
