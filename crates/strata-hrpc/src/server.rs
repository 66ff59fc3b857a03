//! The listener: accepts connections until shutdown, each served on the runtime the
//! composition root hands in, up to a limit of open connections.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::runtime::Handle;
use tokio::sync::Semaphore;

use crate::connection::{self, ConnectionLimits};
use crate::context::Context;

/// Limits of one RPC server.
#[derive(Debug, Clone, Copy)]
pub struct ServerLimits {
    pub max_connections: usize,
    pub connection: ConnectionLimits,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            max_connections: 1024,
            connection: ConnectionLimits::default(),
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Binds `addr` and serves until `shutdown` completes.
pub async fn serve(
    addr: SocketAddr,
    ctx: Arc<Context>,
    runtime: Handle,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    serve_listener(listener, ctx, runtime, limits, shutdown).await;
    Ok(())
}

/// Serves an already bound listener until `shutdown` completes. Open connections end
/// when their clients close them or the runtime stops.
pub async fn serve_listener(
    listener: TcpListener,
    ctx: Arc<Context>,
    runtime: Handle,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!("HBase RPC accept failed: {e}");
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            tracing::warn!(%peer, "HBase RPC connection refused: {} connections are open", limits.max_connections);
            continue;
        };
        let ctx = Arc::clone(&ctx);
        runtime.spawn(async move {
            connection::serve(stream, peer, ctx, limits.connection).await;
            drop(slot);
        });
    }
}
