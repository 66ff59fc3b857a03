//! A gRPC connection that counts itself open for as long as it lives (the
//! `strata_open_connections{api="grpc"}` metric), and that fails its reads once the
//! handshake deadline passes without the whole HTTP/2 preface (see `limits.rs`).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use strata_server::connections::ConnectionGuard;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;
use tonic::transport::server::Connected;

use crate::caller::PeerInfo;

/// The HTTP/2 client connection preface ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") is 24 bytes.
const PREFACE_LEN: usize = 24;

/// A connection (TCP, or TLS over TCP) plus the guard that keeps it counted.
pub struct CountedStream<S = TcpStream> {
    inner: S,
    _open: ConnectionGuard,
    /// Bytes read so far, until the preface is in.
    received: usize,
    /// When the preface must be in by; `None` once it is (or with no deadline).
    handshake: Option<Pin<Box<Sleep>>>,
}

impl<S> CountedStream<S> {
    // A socket deadline against a slow client, on the network runtime: real time.
    #[allow(clippy::disallowed_methods)]
    pub fn new(inner: S, open: ConnectionGuard, handshake: Option<Duration>) -> Self {
        CountedStream {
            inner,
            _open: open,
            received: 0,
            handshake: handshake.map(|t| Box::pin(tokio::time::sleep(t))),
        }
    }

    /// Counts `n` bytes read; the deadline is dropped once the preface is in.
    fn received(&mut self, n: usize) {
        self.received = self.received.saturating_add(n);
        if self.received >= PREFACE_LEN {
            self.handshake = None;
        }
    }

    /// An error once the handshake deadline has passed (and registers for its wake-up).
    fn check_handshake(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        match self.handshake.as_mut().map(|d| d.as_mut().poll(cx)) {
            Some(Poll::Ready(())) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no HTTP/2 preface within limits.grpc_handshake_timeout_ms",
            )),
            _ => Ok(()),
        }
    }
}

impl Connected for CountedStream<TcpStream> {
    type ConnectInfo = PeerInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        PeerInfo {
            addr: self.inner.peer_addr().ok(),
            certificate: None,
        }
    }
}

/// Over TLS the connection also knows its verified client certificate's identity.
impl Connected for CountedStream<strata_tls::TlsStream<TcpStream>> {
    type ConnectInfo = PeerInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        let (tcp, tls) = self.inner.get_ref();
        let certificate = tls
            .peer_certificates()
            .and_then(|chain| chain.first())
            .and_then(|leaf| strata_auth::identity_of_certificate(leaf))
            .map(std::sync::Arc::new);
        PeerInfo {
            addr: tcp.peer_addr().ok(),
            certificate,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for CountedStream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let result = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = result {
            this.received(buf.filled().len() - before);
        }
        // Checked whatever the read did, so a client trickling bytes is cut off too.
        if let Err(e) = this.check_handshake(cx) {
            tracing::info!(error = %e, "closing a gRPC connection");
            return Poll::Ready(Err(e));
        }
        result
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for CountedStream<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
