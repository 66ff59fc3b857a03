//! What can be wrong with a listener's TLS material.

use std::path::PathBuf;

/// A TLS setting that cannot be used. Each names the file and what is wrong with it, so a
/// server refuses to start with a message the operator can act on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {what}", path.display())]
    Pem { path: PathBuf, what: String },
    #[error("TLS configuration: {0}")]
    Config(String),
}

/// This crate's result type.
pub type Result<T> = std::result::Result<T, TlsError>;
