//! Limits that protect the gRPC server from hostile or broken clients (the `[limits]`
//! section's `grpc_*` keys; the size limits on cells and batches are the service's).
//!
//! - `max_connections`: connections past this many are closed as soon as they are accepted.
//! - `handshake_timeout`: a new connection must send the 24-byte HTTP/2 connection preface
//!   within this time, or it is closed. This ends a client that sends half a preface and
//!   goes silent, or trickles it byte by byte (slow-loris): hyper would otherwise wait for
//!   the rest forever, because its keep-alive only starts once the preface is in.
//! - `keepalive_interval` / `keepalive_timeout`: once the connection is up, the server
//!   pings it after this much silence and closes it if the ping is not answered in time. A
//!   client that stalls halfway through a frame, or stops reading, cannot answer, so it is
//!   closed; a healthy idle client answers and stays.
//! - `max_request_bytes`: the largest message decoded (or encoded), as tonic counts it.

use std::time::Duration;

/// The largest request the server accepts by default. Bigtable clients send mutations of up
/// to 256 MiB (tonic's default of 4 MiB is too small for them).
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 256 * 1024 * 1024;
/// Open connections accepted at once by default (as the Thrift server).
pub const DEFAULT_MAX_CONNECTIONS: usize = 1000;
/// Time a new connection has to send the HTTP/2 preface by default.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Silence after which the server pings a connection, by default.
pub const DEFAULT_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
/// Time a ping has to be answered by default (hyper's own default).
pub const DEFAULT_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);

/// Per-server limits on gRPC client connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrpcLimits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Largest message, in bytes.
    pub max_request_bytes: usize,
    /// Time allowed to send the HTTP/2 preface; `None` waits forever.
    pub handshake_timeout: Option<Duration>,
    /// Silence before a keep-alive ping; `None` sends none (and then a client that stalls
    /// after the preface is never closed).
    pub keepalive_interval: Option<Duration>,
    /// Time allowed to answer a keep-alive ping.
    pub keepalive_timeout: Duration,
}

impl Default for GrpcLimits {
    fn default() -> Self {
        GrpcLimits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            handshake_timeout: Some(DEFAULT_HANDSHAKE_TIMEOUT),
            keepalive_interval: Some(DEFAULT_KEEPALIVE_INTERVAL),
            keepalive_timeout: DEFAULT_KEEPALIVE_TIMEOUT,
        }
    }
}
