//! The client ports of a server that is not master: each connection is passed through to the same API on the
//! current master, so clients may use any server's address. A connection made while no
//! master is known is closed at once (the client reconnects).

use std::sync::Arc;

use parking_lot::RwLock;
use tokio::net::{TcpListener, TcpStream};

use crate::config::Endpoints;

/// The master's endpoints as last seen, shared by every forwarder of a standby.
pub type MasterEndpoints = Arc<RwLock<Option<Endpoints>>>;

/// Which of the master's ports a forwarder passes connections to.
pub type PortOf = fn(&Endpoints) -> u16;

/// Accepts on `listener` and passes each connection to the master's `port_of` port until
/// `shutdown` resolves.
pub async fn forward(
    listener: TcpListener,
    master: MasterEndpoints,
    port_of: PortOf,
    shutdown: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((client, _)) = accepted else {
            continue;
        };
        let target = master
            .read()
            .as_ref()
            .map(|m| format!("{}:{}", m.host, port_of(m)));
        let Some(target) = target else {
            continue; // no master yet: dropping the connection closes it
        };
        tokio::spawn(async move {
            if let Err(e) = pass_through(client, &target).await {
                tracing::debug!(target, error = %e, "forwarded connection ended");
            }
        });
    }
}

async fn pass_through(mut client: TcpStream, target: &str) -> std::io::Result<()> {
    let mut upstream = TcpStream::connect(target).await?;
    let _ = client.set_nodelay(true);
    let _ = upstream.set_nodelay(true);
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}
