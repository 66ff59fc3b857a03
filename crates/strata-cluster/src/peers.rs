//! [`Peers`]: the clients of the other servers' internal RPC, one per address, made by the
//! [`PeerConnector`] the composition root hands in (TCP in the binary, in-process in the
//! simulation).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_server::remote::RegionPeer;

use crate::config::Endpoints;

/// Makes the client of another server's internal RPC (`host:port`).
pub type PeerConnector = Arc<dyn Fn(&Endpoints) -> Arc<dyn RegionPeer> + Send + Sync>;

/// Clients of the other servers, one per server and address.
pub struct Peers {
    connect: PeerConnector,
    clients: Mutex<HashMap<String, Arc<dyn RegionPeer>>>,
}

impl Peers {
    pub fn new(connect: PeerConnector) -> Self {
        Peers {
            connect,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// The client of the server at `endpoints`, made on first use.
    pub fn get(&self, endpoints: &Endpoints) -> Arc<dyn RegionPeer> {
        let address = endpoints.peer_address();
        let mut clients = self.clients.lock();
        let client = clients
            .entry(address)
            .or_insert_with(|| (self.connect)(endpoints));
        Arc::clone(client)
    }
}
