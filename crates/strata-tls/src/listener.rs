//! Accepting TLS connections: TCP accepts and handshakes in one loop, handshakes running
//! side by side.
//!
//! A handshake takes a round trip or two, and a client may stall in it on purpose. Run
//! one after another, one slow client would stop a listener from taking any other
//! connection; so [`TlsListener::accept`] keeps up to [`MAX_PENDING_HANDSHAKES`] of them
//! in flight, each bounded by its timeout, and stops taking TCP connections while that
//! many are pending (the kernel's backlog holds the rest), which bounds the memory a flood
//! of half-open connections can take.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{FuturesUnordered, StreamExt};
use rustls::ServerConfig;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// How long a client has to finish its handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Handshakes in flight at most; past it no TCP connection is taken until one ends.
pub const MAX_PENDING_HANDSHAKES: usize = 256;

/// How long to wait after a failed TCP accept (out of file descriptors, say) before the
/// next: retrying at once would spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

type Connection = (TlsStream<TcpStream>, SocketAddr);
type Handshake = Pin<Box<dyn Future<Output = Option<Connection>> + Send>>;

/// A TCP listener whose connections come out with their TLS handshake done.
pub struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    pending: FuturesUnordered<Handshake>,
    handshake_timeout: Duration,
}

impl std::fmt::Debug for TlsListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsListener")
            .field("tcp", &self.tcp)
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl TlsListener {
    /// Serves TLS with `config` on connections `tcp` accepts.
    pub fn new(tcp: TcpListener, config: Arc<ServerConfig>) -> TlsListener {
        TlsListener {
            tcp,
            acceptor: TlsAcceptor::from(config),
            pending: FuturesUnordered::new(),
            handshake_timeout: HANDSHAKE_TIMEOUT,
        }
    }

    /// Gives each client `timeout` to finish its handshake (default [`HANDSHAKE_TIMEOUT`]).
    pub fn with_handshake_timeout(mut self, timeout: Duration) -> TlsListener {
        self.handshake_timeout = timeout;
        self
    }

    /// The address the TCP listener is bound to.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.tcp.local_addr()
    }

    /// The next connection whose handshake succeeded, with its peer's address. Failed and
    /// timed-out handshakes are logged (without anything the client sent) and dropped.
    pub async fn accept(&mut self) -> Connection {
        loop {
            let room = self.pending.len() < MAX_PENDING_HANDSHAKES;
            tokio::select! {
                accepted = self.tcp.accept(), if room => match accepted {
                    Ok((stream, addr)) => self.start_handshake(stream, addr),
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot accept a TLS connection");
                        backoff().await;
                    }
                },
                Some(done) = self.pending.next(), if !self.pending.is_empty() => {
                    if let Some(connection) = done {
                        return connection;
                    }
                }
            }
        }
    }

    fn start_handshake(&mut self, stream: TcpStream, addr: SocketAddr) {
        // Nagle off: small answers must not wait for the client's delayed ACK.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::warn!(error = %e, "cannot disable Nagle on a TLS connection");
        }
        let acceptor = self.acceptor.clone();
        let timeout = self.handshake_timeout;
        self.pending.push(Box::pin(async move {
            match tokio::time::timeout(timeout, acceptor.accept(stream)).await {
                Ok(Ok(tls)) => Some((tls, addr)),
                Ok(Err(e)) => {
                    tracing::debug!(%addr, error = %e, "TLS handshake failed");
                    None
                }
                Err(_) => {
                    tracing::debug!(%addr, "TLS handshake timed out");
                    None
                }
            }
        }));
    }
}

// The accept loop's pause after an error, on the listener's own runtime (as a plain
// tokio listener loop does); no test depends on its length.
#[allow(clippy::disallowed_methods)]
async fn backoff() {
    tokio::time::sleep(ACCEPT_BACKOFF).await;
}
