//! Serving the `Hbase` service on a TCP port.
//!
//! One port serves every client configuration HBase's Thrift server offers: the request
//! reader (`request_reader.rs`) looks at the first bytes of each request and recognises a
//! frame header (framed transport) or its absence (buffered transport), then the protocol id
//! byte: 0x80 for binary, 0x82 for compact. Replies use the framing and protocol of the
//! request. Compact requests are decoded through `codec.rs`, which works around pilota's
//! compact decoder.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use strata_server::Service;
use tokio::net::TcpListener;
use volo::net::conn::Conn;
use volo::net::incoming::{Incoming, MakeIncoming};

use crate::connection_codec::MakeConnectionCodec;
use crate::gen::volo_gen::hbase::HbaseServer;
use crate::handler::Handler;
use crate::limits::{ConnectionCount, ThriftLimits};

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("thrift server failed: {0}")]
    Server(String),
}

/// Binds `addr` and serves until `shutdown` completes.
pub async fn serve(
    addr: SocketAddr,
    service: Arc<Service>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    serve_listener(listener, service, shutdown).await
}

/// Serves on an already bound listener (so a caller can bind port 0 and learn the port).
///
/// After `shutdown`, no new connection is accepted; volo then lets open connections finish
/// their current call (it waits up to about 30 s for them to close).
///
/// volo also stops the server on SIGINT, SIGTERM and SIGHUP on its own.
pub async fn serve_listener(
    listener: TcpListener,
    service: Arc<Service>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let limits = ThriftLimits::default();
    let connections = ConnectionCount::shared(
        service
            .connections()
            .counter(strata_server::connections::Api::Thrift),
    );
    serve_listener_with(listener, service, limits, connections, shutdown).await
}

/// [`serve_listener`] with explicit client limits; `connections` counts the open ones.
pub async fn serve_listener_with(
    listener: TcpListener,
    service: Arc<Service>,
    limits: ThriftLimits,
    connections: ConnectionCount,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    serve_on(
        Listener::Plain(listener),
        service,
        limits,
        connections,
        shutdown,
    )
    .await
}

/// [`serve_listener_with`] over TLS: connections come out of `listener` with their
/// handshake done (docs/security.md).
pub async fn serve_tls_listener_with(
    listener: strata_tls::TlsListener,
    service: Arc<Service>,
    limits: ThriftLimits,
    connections: ConnectionCount,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    serve_on(
        Listener::Tls(listener),
        service,
        limits,
        connections,
        shutdown,
    )
    .await
}

async fn serve_on(
    listener: Listener,
    service: Arc<Service>,
    limits: ThriftLimits,
    connections: ConnectionCount,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let handler = Handler::new(Arc::clone(&service), port);
    let incoming = StoppableIncoming {
        listener,
        shutdown: Box::pin(shutdown),
        limits,
        connections: connections.clone(),
    };
    let codec = MakeConnectionCodec::new(limits, connections, service.request_budget().clone());
    let result = HbaseServer::new(handler)
        .layer_front(crate::connection_scope::ScopeLayer)
        .make_codec(codec)
        .run(incoming)
        .await
        .map_err(|e| ServeError::Server(e.to_string()));
    result
}

/// A listener whose accept loop ends when the shutdown future completes: volo's server stops
/// accepting when its incoming stream ends.
struct StoppableIncoming {
    listener: Listener,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
    limits: ThriftLimits,
    connections: ConnectionCount,
}

/// Where connections come from: plain TCP, or TLS over TCP.
enum Listener {
    Plain(TcpListener),
    Tls(strata_tls::TlsListener),
}

impl Listener {
    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        match self {
            Listener::Plain(l) => l.local_addr(),
            Listener::Tls(l) => l.local_addr(),
        }
    }

    /// The next connection and its peer; a TLS one has its handshake done.
    async fn accept(&mut self) -> std::io::Result<(Conn, SocketAddr)> {
        match self {
            Listener::Plain(l) => l.accept().await.map(|(s, peer)| (Conn::from(s), peer)),
            Listener::Tls(l) => {
                let (stream, peer) = l.accept().await;
                let stream = strata_tls::tokio_rustls::TlsStream::from(stream);
                Ok((Conn::from(stream), peer))
            }
        }
    }
}

impl std::fmt::Debug for StoppableIncoming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "thrift listener {:?}", self.listener.local_addr().ok())
    }
}

impl MakeIncoming for StoppableIncoming {
    type Incoming = StoppableIncoming;

    async fn make_incoming(self) -> std::io::Result<Self::Incoming> {
        Ok(self)
    }
}

impl Incoming for StoppableIncoming {
    async fn accept(&mut self) -> std::io::Result<Option<Conn>> {
        loop {
            tokio::select! {
                () = &mut self.shutdown => return Ok(None),
                accepted = self.listener.accept() => match accepted {
                    Ok((conn, peer)) => {
                        if self.connections.try_acquire(self.limits.max_connections) {
                            return Ok(Some(conn));
                        }
                        // Dropping the stream closes it: the client sees the connection end.
                        tracing::warn!(%peer, max = self.limits.max_connections, "thrift connection refused: too many open");
                    }
                    // Out of file descriptors and the like: an error here would end volo's
                    // accept loop for good, so wait and keep serving the open connections.
                    Err(e) => {
                        tracing::warn!(error = %e, "thrift accept failed");
                        // The accept loop's own back-off on the network runtime, not a
                        // protocol timer: real time is what the OS frees descriptors in.
                        #[allow(clippy::disallowed_methods)]
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
            }
        }
    }
}
