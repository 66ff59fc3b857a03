//! The shell's one error type.

use crate::parser::ParseError;

#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    /// The server refused the call (a missing table, a bad filter, ...).
    #[error("{0}")]
    Server(String),
    /// A Strata extension method the server does not know (a real HBase).
    #[error("{0} is not supported by this server (it needs Strata's Thrift extensions)")]
    Unsupported(String),
    #[error("cannot talk to the server at {address}: {message}")]
    Connection { address: String, message: String },
    /// Wrong arguments to a command: the command's help follows the message.
    #[error("{0}")]
    Usage(String),
    #[error("Unknown command '{0}'. Try 'help'.")]
    UnknownCommand(String),
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A reply the shell cannot use (a counter that is not 8 bytes wide).
    #[error("{0}")]
    Corruption(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

pub type Result<T> = std::result::Result<T, ShellError>;

/// Shorthand for a usage error.
pub fn usage(message: impl Into<String>) -> ShellError {
    ShellError::Usage(message.into())
}
