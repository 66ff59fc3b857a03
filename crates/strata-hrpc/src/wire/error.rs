//! What can be wrong with the bytes a client sent.

/// A malformed or refused frame. Every variant closes the connection: the stream can no
/// longer be trusted to be at a frame boundary.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum WireError {
    #[error("not an HBase RPC preamble: {0:02x?}")]
    BadPreamble([u8; 6]),
    #[error("RPC version {0} is not supported (only 0)")]
    UnsupportedVersion(u8),
    #[error("authentication method {0} is not supported (only SIMPLE, 80)")]
    UnsupportedAuth(u8),
    #[error("frame of {len} bytes is larger than the limit of {limit}")]
    FrameTooLarge { len: u64, limit: usize },
    #[error("frame is truncated: {0}")]
    Truncated(&'static str),
    #[error("cannot decode {what}: {reason}")]
    Protobuf { what: &'static str, reason: String },
    #[error("cell block is malformed: {0}")]
    CellBlock(String),
}

impl WireError {
    pub(crate) fn protobuf(what: &'static str, error: prost::DecodeError) -> WireError {
        WireError::Protobuf {
            what,
            reason: error.to_string(),
        }
    }
}
