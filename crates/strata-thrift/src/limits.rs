//! Limits that protect the Thrift server from hostile or broken clients (the `[limits]`
//! keys `thrift_read_timeout_ms` and `thrift_max_connections`; the request-size limits are
//! the service's, `strata_server::Limits`).
//!
//! - `read_timeout`: a connection must deliver a whole request within this time of opening or
//!   of its previous reply, or the server closes it. This covers a client that sends half a
//!   frame and stalls, one that trickles bytes (slow-loris) and one that sits idle, like
//!   HBase's `hbase.thrift.server.socket.read.timeout` (60 s by default there too). Time
//!   spent running a request does not count: a long scan batch is not cut off.
//! - `max_connections`: connections past this many are closed as soon as they are accepted,
//!   so a flood of connections cannot exhaust memory or file descriptors.
//!
//! Scanners are the service's: its registry caps them per connection
//! (`limits.max_scanners_per_client`, charged to the connection through
//! `connection_scope.rs`) and closes abandoned ones when their lease runs out.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// HBase's default Thrift socket read timeout.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(60);
/// Open connections accepted at once by default (HBase's default Thrift worker pool size).
pub const DEFAULT_MAX_CONNECTIONS: usize = 1000;

/// Per-server limits on client connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThriftLimits {
    /// Time allowed to receive one whole request; `None` waits forever.
    pub read_timeout: Option<Duration>,
    /// Most connections open at once.
    pub max_connections: usize,
}

impl Default for ThriftLimits {
    fn default() -> Self {
        ThriftLimits {
            read_timeout: Some(DEFAULT_READ_TIMEOUT),
            max_connections: DEFAULT_MAX_CONNECTIONS,
        }
    }
}

/// Counts open connections. The accept loop takes a slot; the connection's decoder holds it
/// (as a [`ConnectionSlot`]) and gives it back when the connection ends.
#[derive(Debug, Default, Clone)]
pub struct ConnectionCount(Arc<AtomicUsize>);

impl ConnectionCount {
    /// A count kept in `counter` (the service's, so that `/metrics` sees it).
    pub fn shared(counter: Arc<AtomicUsize>) -> Self {
        ConnectionCount(counter)
    }

    /// Open connections now.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Takes a slot if fewer than `max` are taken.
    pub(crate) fn try_acquire(&self, max: usize) -> bool {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .is_ok()
    }

    /// A guard for a slot already taken by `try_acquire`.
    pub(crate) fn slot(&self) -> ConnectionSlot {
        ConnectionSlot(self.0.clone())
    }
}

/// One taken connection slot, given back on drop.
#[derive(Debug)]
pub struct ConnectionSlot(Arc<AtomicUsize>);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
