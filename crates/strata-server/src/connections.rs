//! Open client connections per network API, for `/metrics` and the status page. Each server
//! holds a [`ConnectionGuard`] per accepted connection; the count drops when it is dropped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The network APIs whose connections are counted: the long-lived client connections.
/// (HTTP's are not counted.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Thrift,
    Grpc,
}

impl Api {
    /// Every API, in the order metrics list them.
    pub const ALL: [Api; 2] = [Api::Thrift, Api::Grpc];

    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Api::Thrift => "thrift",
            Api::Grpc => "grpc",
        }
    }
}

/// One counter per API.
#[derive(Debug, Default)]
pub struct Connections {
    thrift: Arc<AtomicUsize>,
    grpc: Arc<AtomicUsize>,
}

impl Connections {
    /// The shared counter of `api` (a server that counts by itself takes this one).
    pub fn counter(&self, api: Api) -> Arc<AtomicUsize> {
        Arc::clone(match api {
            Api::Thrift => &self.thrift,
            Api::Grpc => &self.grpc,
        })
    }

    /// Connections of `api` open now.
    pub fn open(&self, api: Api) -> usize {
        self.counter(api).load(Ordering::Relaxed)
    }

    /// Counts one new connection of `api` until the guard is dropped.
    pub fn guard(&self, api: Api) -> ConnectionGuard {
        let counter = self.counter(api);
        counter.fetch_add(1, Ordering::Relaxed);
        ConnectionGuard(counter)
    }
}

/// One open connection; dropping it counts the connection as closed.
#[derive(Debug)]
pub struct ConnectionGuard(Arc<AtomicUsize>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_count_open_connections_per_api() {
        let c = Connections::default();
        let a = c.guard(Api::Grpc);
        let b = c.guard(Api::Grpc);
        assert_eq!(c.open(Api::Grpc), 2);
        assert_eq!(c.open(Api::Thrift), 0);
        drop(a);
        assert_eq!(c.open(Api::Grpc), 1);
        drop(b);
        assert_eq!(c.open(Api::Grpc), 0);
    }
}
