//! The facade's limits and identity.

use std::time::Duration;

use crate::handshake::TimeoutRange;

/// How the facade serves. [`ZkConfig::default`] follows ZooKeeper's defaults where it has
/// one (frame limit, session timeout range for a 2 s tick).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZkConfig {
    /// Connections open at once; one more is closed as soon as it is accepted. With the
    /// frame limit this bounds the memory a flood of connections can take.
    pub max_connections: usize,
    /// Sessions remembered at once: those with a connection, and those whose connection
    /// ended less than their timeout ago (they may still be resumed).
    pub max_sessions: usize,
    /// The largest frame accepted (ZooKeeper's `jute.maxbuffer`, 1 MiB by default), checked
    /// from the length prefix before the body is read.
    pub max_frame_bytes: usize,
    /// The negotiated session timeout is the client's request clamped into this range.
    pub min_session_timeout: Duration,
    pub max_session_timeout: Duration,
    /// How long a new connection may take to send its whole connect request.
    pub handshake_timeout: Duration,
    /// The top byte of every session id this server hands out; give each server of a
    /// cluster its own, as ZooKeeper's `myid`.
    pub server_id: u8,
    /// Mixed into session passwords. Servers that share it accept each other's passwords,
    /// but a session lives in one server's table, so a client moving servers starts anew.
    pub session_secret: u64,
}

impl Default for ZkConfig {
    fn default() -> Self {
        ZkConfig {
            max_connections: 1024,
            max_sessions: 4096,
            max_frame_bytes: 1 << 20,
            min_session_timeout: Duration::from_secs(4),
            max_session_timeout: Duration::from_secs(40),
            handshake_timeout: Duration::from_secs(10),
            server_id: 1,
            session_secret: 0x5354_5241_5441_5a4b,
        }
    }
}

impl ZkConfig {
    pub(crate) fn session_timeouts(&self) -> TimeoutRange {
        TimeoutRange {
            min: self.min_session_timeout,
            max: self.max_session_timeout,
        }
    }
}
