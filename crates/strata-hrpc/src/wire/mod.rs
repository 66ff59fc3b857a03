//! HBase's RPC framing: the connection preamble and header, request and response frames,
//! and KeyValue cell blocks. Everything here is pure decoding and encoding of bytes, so
//! the fuzz target and the unit tests drive it without a socket.

pub mod cellblock;
pub mod error;
pub mod frame;
pub mod preamble;

pub use error::WireError;
