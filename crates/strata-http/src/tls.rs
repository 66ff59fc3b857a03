//! The HTTP port over TLS: the same router, on connections whose handshake
//! `strata_tls::TlsListener` completed.

use std::future::Future;
use std::net::SocketAddr;

use axum::serve::ListenerExt;
use axum::Router;
use strata_tls::{TlsListener, TlsStream};
use tokio::net::TcpStream;

/// [`TlsListener`] as axum's listener (a type of this crate, so axum's trait can be
/// implemented for it).
struct HttpsListener(TlsListener);

impl axum::serve::Listener for HttpsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        self.0.accept().await
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// Serves `router` over TLS on `listener` until `shutdown` completes, as
/// [`crate::serve_listener`] does over plain TCP.
pub async fn serve_tls_listener(
    listener: TlsListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // Through `tap_io` (a no-op here: the TLS listener sets Nagle off itself) because axum
    // gives a tapped listener's connections their peer's address as connect info, which
    // the REST gateway charges scanners to.
    let listener = HttpsListener(listener).tap_io(|_| {});
    let service = router.into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, service)
        .with_graceful_shutdown(shutdown)
        .await
}
