//! The accept loop: every connection runs as a future of this one task (no task is
//! spawned, so the crate needs no spawner; the composition root spawns `serve_listener`
//! itself). A ZooKeeper client sends a handful of reads at start-up and a ping every few
//! seconds, so one task has ample room for thousands of them.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{FuturesUnordered, StreamExt};
use strata_runtime::clock::Clock;
use tokio::net::TcpListener;

use crate::config::ZkConfig;
use crate::connection::{serve_connection, Shared};
use crate::session::SessionTable;
use crate::tree::ZkTree;

/// Why the server could not serve.
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
    tree: Arc<dyn ZkTree>,
    config: ZkConfig,
    clock: Arc<dyn Clock>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    serve_listener(listener, tree, config, clock, shutdown).await;
    Ok(())
}

/// Serves the ZooKeeper protocol on an already bound listener until `shutdown` completes;
/// then every open connection is closed (its clients reconnect to another server of the
/// quorum, as they do when a ZooKeeper server stops). `clock` times session expiry.
pub async fn serve_listener(
    listener: TcpListener,
    tree: Arc<dyn ZkTree>,
    config: ZkConfig,
    clock: Arc<dyn Clock>,
    shutdown: impl Future<Output = ()> + Send,
) {
    let sessions = SessionTable::new(
        clock,
        config.server_id,
        config.session_secret,
        config.max_sessions,
    );
    let shared = Shared {
        tree,
        sessions,
        config,
    };
    let max_connections = shared.config.max_connections;
    let mut connections = FuturesUnordered::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(()) = connections.next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) if connections.len() < max_connections => {
                    connections.push(serve_connection(stream, peer, &shared));
                }
                Ok((_, peer)) => {
                    // Dropping the stream closes it; the client tries another server.
                    tracing::warn!(%peer, max = max_connections, "zookeeper connection refused: too many open");
                }
                Err(e) => {
                    tracing::warn!(error = %e, "zookeeper accept failed");
                    back_off(&mut connections).await;
                }
            },
        }
    }
    tracing::info!(
        open = connections.len(),
        "zookeeper facade stopped; closing its connections"
    );
}

/// After a failed accept (out of file descriptors, say) waits a little before accepting
/// again, serving the open connections meanwhile.
async fn back_off<F: Future<Output = ()>>(connections: &mut FuturesUnordered<F>) {
    // The accept loop's back-off on the network runtime, not a protocol timer: real time
    // is what the OS frees descriptors in.
    #[allow(clippy::disallowed_methods)]
    let pause = tokio::time::sleep(Duration::from_millis(100));
    tokio::pin!(pause);
    loop {
        tokio::select! {
            () = &mut pause => return,
            Some(()) = connections.next(), if !connections.is_empty() => {}
        }
    }
}
