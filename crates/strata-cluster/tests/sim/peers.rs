//! Peers that are services in this process: the simulation's stand-in for the internal
//! RPC. Each server gets a connector that knows who is calling, so a partition can cut
//! a server off in both directions; a link can also lose the reply of a request it
//! carried out (the caller then cannot know the outcome, as over TCP).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use strata_cluster::peers::PeerConnector;
use strata_cluster::Endpoints;
use strata_engine::{Cell, Get, RowResult};
use strata_server::remote::{
    admin_codec, AdminReply, AdminRequest, ExpectedReads, PeerTable, PeerWrite, RegionPeer,
    RegionWork, RowSpan, ScanChunk,
};
use strata_server::{Service, ServiceError};

type Result<T> = std::result::Result<T, ServiceError>;

#[derive(Default)]
struct State {
    /// Services by peer address (`host:port`, one per incarnation).
    services: HashMap<String, Weak<Service>>,
    /// Addresses cut off from every other server.
    cut: HashSet<String>,
    /// Replies to lose, per target address: the request is carried out, the answer not.
    lost_replies: HashMap<String, u32>,
}

/// Every in-process server, by address.
#[derive(Default)]
pub struct PeerNet {
    state: Mutex<State>,
}

impl PeerNet {
    pub fn register(&self, address: &str, service: &Arc<Service>) {
        let mut state = self.state.lock();
        state
            .services
            .insert(address.into(), Arc::downgrade(service));
        state.cut.remove(address);
    }

    pub fn unregister(&self, address: &str) {
        self.state.lock().services.remove(address);
    }

    pub fn set_cut(&self, address: &str, cut: bool) {
        let mut state = self.state.lock();
        if cut {
            state.cut.insert(address.into());
        } else {
            state.cut.remove(address);
        }
    }

    pub fn lose_replies(&self, address: &str, count: u32) {
        *self
            .state
            .lock()
            .lost_replies
            .entry(address.into())
            .or_default() += count;
    }

    /// The connector server `from` makes its peers with.
    pub fn connector(self: &Arc<Self>, from: String) -> PeerConnector {
        let net = Arc::clone(self);
        Arc::new(move |endpoints: &Endpoints| -> Arc<dyn RegionPeer> {
            Arc::new(Link {
                net: Arc::clone(&net),
                from: from.clone(),
                to: endpoints.peer_address(),
            })
        })
    }

    /// The target's service, or the error of a request that never left.
    fn reach(&self, from: &str, to: &str) -> Result<Arc<Service>> {
        let state = self.state.lock();
        let unsent = |reason: &str| ServiceError::PeerUnavailable {
            peer: to.into(),
            reason: reason.into(),
            unsent: true,
        };
        if state.cut.contains(from) || state.cut.contains(to) {
            return Err(unsent("partitioned by the simulation"));
        }
        state
            .services
            .get(to)
            .and_then(Weak::upgrade)
            .ok_or_else(|| unsent("connection refused (no such server)"))
    }

    /// Whether the reply of a request just carried out on `to` is lost.
    fn take_lost_reply(&self, to: &str) -> bool {
        let mut state = self.state.lock();
        match state.lost_replies.get_mut(to) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

/// One server's client of another.
struct Link {
    net: Arc<PeerNet>,
    from: String,
    to: String,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Link({} -> {})", self.from, self.to)
    }
}

impl Link {
    /// Carries out `call` on the target; a write's reply may be lost on the way back.
    fn call<T>(&self, write: bool, call: impl FnOnce(&Service) -> Result<T>) -> Result<T> {
        let service = self.net.reach(&self.from, &self.to)?;
        let answer = call(&service);
        if write && self.net.take_lost_reply(&self.to) {
            return Err(ServiceError::PeerUnavailable {
                peer: self.to.clone(),
                reason: "the reply was lost (simulation)".into(),
                unsent: false,
            });
        }
        answer
    }
}

impl RegionPeer for Link {
    fn address(&self) -> String {
        self.to.clone()
    }
    fn get(&self, table: &PeerTable, get: &Get) -> Result<Option<RowResult>> {
        self.call(false, |s| s.peer_serving().serve_get(table, get))
    }
    fn mutate(&self, table: &PeerTable, cells: Vec<Cell>, write: PeerWrite) -> Result<()> {
        self.call(true, |s| s.peer_serving().serve_mutate(table, cells, write))
    }
    fn mutate_if(
        &self,
        table: &PeerTable,
        row: &[u8],
        expected: ExpectedReads,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<bool> {
        self.call(true, |s| {
            s.peer_serving()
                .serve_mutate_if(table, row, &expected, cells, write)
        })
    }
    fn scan_chunk(&self, table: &PeerTable, chunk: &ScanChunk) -> Result<Vec<RowResult>> {
        self.call(false, |s| s.peer_serving().serve_scan_chunk(table, chunk))
    }
    fn maintain(&self, table: &PeerTable, range: &RowSpan, work: RegionWork) -> Result<u64> {
        self.call(false, |s| {
            s.peer_serving().serve_maintain(table, range, work)
        })
    }
    fn admin(&self, request: &AdminRequest) -> Result<AdminReply> {
        // Through the wire encoding both ways, as the internal RPC carries it.
        let request = admin_codec::decode_request(&admin_codec::encode_request(request))?;
        let reply = self.call(false, |s| s.peer_serving().serve_admin(request))?;
        admin_codec::decode_reply(&admin_codec::encode_reply(&reply))
    }
}
