//! The owner's side: accepts connections from other servers and serves each on a thread
//! of its own (`session.rs`), up to a limit.
//!
//! Accepting runs on the caller's tokio runtime, since it waits for a shutdown future as
//! well; the requests never do: a connection's thread reads a request, calls the service
//! and writes the answer, with no hand-off between threads.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use strata_runtime::thread;
use strata_server::{Service, ServiceError};

use crate::session;

/// How long a connection may wait for its next request before the server closes it:
/// longer than a client keeps a connection idle ([`crate::pool::MAX_IDLE_AGE`]), so
/// this only closes the connections of a client that went away without closing them.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// How long [`serve`] waits, once stopped, for the requests being served to end.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The bounds of a peer server.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Connections served at once (each has a thread); one more is refused with an error
    /// the client reports. Every other server opens about one per request it forwards
    /// concurrently.
    pub max_connections: usize,
    /// See [`IDLE_TIMEOUT`].
    pub idle_timeout: Duration,
    /// How long writing an answer may block on a client that does not read it.
    pub write_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            max_connections: 1024,
            idle_timeout: IDLE_TIMEOUT,
            write_timeout: Duration::from_secs(60),
        }
    }
}

/// Serves the peer service of `service` on `listener` until `shutdown` completes, with
/// the default [`ServeOptions`].
pub async fn serve(
    service: Arc<Service>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    serve_with(service, listener, ServeOptions::default(), shutdown).await
}

/// Serves the peer service of `service` on `listener` until `shutdown` completes. Then
/// it stops accepting, closes every connection (a request being served finishes, its
/// answer is lost) and waits a little for their threads to end. Dropping the future
/// closes the connections as well.
pub async fn serve_with(
    service: Arc<Service>,
    listener: tokio::net::TcpListener,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let open = OpenConnections::new();
    let closing = CloseOnDrop(Arc::clone(&open));
    let options = Arc::new(options);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => admit(&service, &open, &options, stream),
                Err(e) => {
                    // Out of file descriptors, say: wait rather than spin on the error.
                    tracing::warn!(error = %e, "the peer server cannot accept a connection");
                    // The accept loop's back-off on the network runtime: real time.
                    #[allow(clippy::disallowed_methods)]
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
    drop(listener);
    drop(closing);
    let mut waited = Duration::ZERO;
    let step = Duration::from_millis(5);
    while open.count() > 0 && waited < STOP_GRACE {
        // Waiting for open connections to drain as the listener stops: real time.
        #[allow(clippy::disallowed_methods)]
        tokio::time::sleep(step).await;
        waited += step;
    }
    Ok(())
}

/// Serves a new connection on a thread of its own, or refuses it when at the limit.
fn admit(
    service: &Arc<Service>,
    open: &Arc<OpenConnections>,
    options: &Arc<ServeOptions>,
    stream: tokio::net::TcpStream,
) {
    let stream = match stream.into_std().and_then(|s| {
        s.set_nonblocking(false)?;
        Ok(s)
    }) {
        Ok(stream) => stream,
        Err(e) => {
            tracing::warn!(error = %e, "cannot serve a peer connection");
            return;
        }
    };
    let clone = match stream.try_clone() {
        Ok(clone) => clone,
        Err(e) => {
            tracing::warn!(error = %e, "cannot serve a peer connection");
            return;
        }
    };
    let Some(registered) = open.register(clone, options.max_connections) else {
        let busy = ServiceError::Remote {
            kind: strata_server::ErrorKind::Busy,
            message: format!(
                "too many connections: this server serves at most {} internal RPC connections",
                options.max_connections
            ),
        };
        session::refuse(stream, &busy);
        return;
    };
    let (service, options) = (Arc::clone(service), Arc::clone(options));
    let started = thread::spawn("strata-peer-conn", move || {
        let _registered = registered;
        session::run(&service, stream, &options);
    });
    if let Err(e) = started {
        // The closure, its stream and its registration are dropped: the connection closes.
        tracing::warn!(error = %e, "cannot start a thread for a peer connection");
    }
}

/// The connections being served, each by a clone of its socket, so that stopping the
/// server can close them under their threads (which are blocked reading).
#[derive(Debug, Default)]
struct OpenConnections {
    sockets: Mutex<Registry>,
}

#[derive(Debug, Default)]
struct Registry {
    next: u64,
    /// Closed: no connection is registered any more.
    closed: bool,
    open: HashMap<u64, TcpStream>,
}

impl OpenConnections {
    fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn count(&self) -> usize {
        self.sockets.lock().open.len()
    }

    /// Registers a connection by `clone`, a handle of its socket, unless `max` are open
    /// already (or the server stopped).
    fn register(self: &Arc<Self>, clone: TcpStream, max: usize) -> Option<Registered> {
        let mut registry = self.sockets.lock();
        if registry.closed || registry.open.len() >= max {
            return None;
        }
        let id = registry.next;
        registry.next += 1;
        registry.open.insert(id, clone);
        Some(Registered {
            open: Arc::clone(self),
            id,
        })
    }

    /// Shuts every connection down: a thread blocked reading its next request sees the
    /// end of the stream, one serving a request fails to write the answer.
    fn close_all(&self) {
        let mut registry = self.sockets.lock();
        registry.closed = true;
        for socket in registry.open.values() {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }
}

/// A connection's place in [`OpenConnections`], given up when its thread ends.
struct Registered {
    open: Arc<OpenConnections>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.open.sockets.lock().open.remove(&self.id);
    }
}

/// Closes the connections when [`serve_with`] returns or its future is dropped.
struct CloseOnDrop(Arc<OpenConnections>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close_all();
    }
}
