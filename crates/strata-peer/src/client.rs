//! The forwarding server's side: a [`RegionPeer`] that sends each primitive to another
//! server over gRPC.
//!
//! `RegionPeer` is synchronous, and its callers are plain threads or threads of another
//! tokio runtime (inside `spawn_blocking`, or even a worker). Blocking on a future from
//! inside a runtime panics, so the client owns a small runtime of its own: each call is
//! spawned there and the caller waits on a plain channel for the answer, which is safe
//! from any thread.

use std::future::Future;
use std::sync::mpsc;
use std::time::Duration;

use strata_engine::{Cell, Get, RowResult};
use strata_server::remote::{
    admin_codec, AdminReply, AdminRequest, ExpectedReads, PeerTable, PeerWrite, RegionPeer,
    RegionWork, RowSpan, ScanChunk,
};
use strata_server::{Result, ServiceError};
use tonic::transport::{Channel, Endpoint};
use tonic::{Response, Status};

use crate::convert as c;
use crate::generated::peer_client::PeerClient as GeneratedClient;
use crate::messages as m;
use crate::status::status_to_error;
use crate::MAX_MESSAGE_BYTES;

/// How long a call waits for its answer by default, connecting included.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);

/// How long an administration call waits for the master's answer: creating a table of
/// many regions, or decommissioning a server (which moves each of its regions), takes
/// longer than any data request.
pub const ADMIN_DEADLINE: Duration = Duration::from_secs(300);

/// Why a [`PeerClient`] could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PeerClientError {
    #[error("invalid peer address {address:?}: {reason}")]
    InvalidAddress { address: String, reason: String },
    #[error("cannot start the peer client's runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

/// The client of one other server's peer service. Connects on first use and reconnects
/// after a failure by itself; a call that gets no answer within the deadline (the peer is
/// down, unreachable or stuck) fails with `PeerUnavailable`.
#[derive(Debug)]
pub struct PeerClient {
    address: String,
    deadline: Duration,
    client: GeneratedClient<Channel>,
    runtime: OwnRuntime,
}

impl PeerClient {
    /// The client of the server at `address` (`host:port`), with [`DEFAULT_DEADLINE`].
    pub fn new(address: &str) -> std::result::Result<Self, PeerClientError> {
        Self::with_deadline(address, DEFAULT_DEADLINE)
    }

    /// The client of the server at `address`, each call failing after `deadline`.
    pub fn with_deadline(
        address: &str,
        deadline: Duration,
    ) -> std::result::Result<Self, PeerClientError> {
        let invalid = |reason: String| PeerClientError::InvalidAddress {
            address: address.to_string(),
            reason,
        };
        let endpoint = Endpoint::from_shared(format!("http://{address}"))
            .map_err(|e| invalid(e.to_string()))?
            .connect_timeout(deadline)
            .timeout(deadline)
            .tcp_nodelay(true);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("strata-peer-client")
            .enable_all()
            .build()?;
        // The channel's background task is spawned on the runtime entered here.
        let channel = {
            let _entered = runtime.enter();
            endpoint.connect_lazy()
        };
        let client = GeneratedClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        Ok(PeerClient {
            address: address.to_string(),
            deadline,
            client,
            runtime: OwnRuntime(Some(runtime)),
        })
    }

    /// Runs one call on the client's runtime and waits for its answer (or the deadline).
    fn call<T, F, Fut>(&self, call: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(GeneratedClient<Channel>) -> Fut,
        Fut: Future<Output = std::result::Result<Response<T>, Status>> + Send + 'static,
    {
        self.call_within(self.deadline, call)
    }

    /// [`PeerClient::call`] with its own deadline.
    fn call_within<T, F, Fut>(&self, deadline: Duration, call: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(GeneratedClient<Channel>) -> Fut,
        Fut: Future<Output = std::result::Result<Response<T>, Status>> + Send + 'static,
    {
        let Some(runtime) = &self.runtime.0 else {
            return Err(self.unavailable("the client is shut down".into()));
        };
        let answer = call(self.client.clone());
        let (tx, rx) = mpsc::sync_channel(1);
        runtime.spawn(async move {
            let answer = tokio::time::timeout(deadline, answer).await;
            // The caller waits until it gets this; if it is gone, nobody needs it.
            let _ = tx.send(answer);
        });
        match wait_blocking(|| rx.recv()) {
            Ok(Ok(Ok(response))) => Ok(response.into_inner()),
            Ok(Ok(Err(status))) => Err(status_to_error(&self.address, &status)),
            Ok(Err(_)) => Err(self.unavailable(format!("no answer within {deadline:?}"))),
            Err(_) => Err(self.unavailable("the client's runtime stopped".into())),
        }
    }

    fn unavailable(&self, reason: String) -> ServiceError {
        ServiceError::PeerUnavailable {
            peer: self.address.clone(),
            reason,
            unsent: false,
        }
    }

    /// A malformed answer is the peer failing to answer, not an error of the request.
    fn decoded<T>(&self, answer: Result<T>) -> Result<T> {
        answer.map_err(|e| self.unavailable(format!("malformed answer: {e}")))
    }
}

impl RegionPeer for PeerClient {
    fn address(&self) -> String {
        self.address.clone()
    }

    fn get(&self, table: &PeerTable, get: &Get) -> Result<Option<RowResult>> {
        let request = m::GetRequest {
            table: c::table_to_msg(&table.name),
            schema: table.schema,
            get: Some(c::get_to_msg(get)),
        };
        let answer = self.call(|mut client| async move { client.get(request).await })?;
        self.decoded(answer.row.map(c::row_from_msg).transpose())
    }

    fn mutate(&self, table: &PeerTable, cells: Vec<Cell>, write: PeerWrite) -> Result<()> {
        let request = m::MutateRequest {
            table: c::table_to_msg(&table.name),
            schema: table.schema,
            cells: c::cells_to_msg(&cells),
            dialect: c::dialect_to_msg(write.dialect),
            durability: write.durability.name().to_string(),
        };
        self.call(|mut client| async move { client.mutate(request).await })?;
        Ok(())
    }

    fn mutate_if(
        &self,
        table: &PeerTable,
        row: &[u8],
        expected: ExpectedReads,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<bool> {
        let request = m::MutateIfRequest {
            table: c::table_to_msg(&table.name),
            schema: table.schema,
            row: bytes::Bytes::copy_from_slice(row),
            expected: c::expected_to_msg(&expected),
            cells: c::cells_to_msg(&cells),
            dialect: c::dialect_to_msg(write.dialect),
            durability: write.durability.name().to_string(),
        };
        let answer = self.call(|mut client| async move { client.mutate_if(request).await })?;
        Ok(answer.applied)
    }

    fn maintain(&self, table: &PeerTable, range: &RowSpan, work: RegionWork) -> Result<u64> {
        let request = m::MaintainRequest {
            table: c::table_to_msg(&table.name),
            schema: table.schema,
            start: range.start.clone(),
            end: range.end.clone(),
            work: c::work_to_msg(work),
        };
        let answer = self.call(|mut client| async move { client.maintain(request).await })?;
        Ok(answer.bytes)
    }

    fn scan_chunk(&self, table: &PeerTable, chunk: &ScanChunk) -> Result<Vec<RowResult>> {
        let request = c::chunk_to_msg(table, chunk);
        let answer = self.call(|mut client| async move { client.scan_chunk(request).await })?;
        self.decoded(c::rows_from_msg(answer.rows))
    }

    fn admin(&self, request: &AdminRequest) -> Result<AdminReply> {
        let request = m::AdminRequest {
            request: admin_codec::encode_request(request).into(),
        };
        let answer = self.call_within(ADMIN_DEADLINE, |mut client| async move {
            client.admin(request).await
        })?;
        self.decoded(admin_codec::decode_reply(&answer.reply))
    }
}

/// Runs `wait` (a blocking wait for a peer's answer). On a worker of a multi-threaded
/// runtime (a network server answering a point read on its own task) it tells the runtime
/// first, which moves the worker's other tasks elsewhere: otherwise every request waiting
/// on a peer would hold a worker, and a few of them would stall the server.
fn wait_blocking<T>(wait: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    let multi_threaded =
        Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread);
    if multi_threaded {
        tokio::task::block_in_place(wait)
    } else {
        wait()
    }
}

/// The client's runtime, shut down without waiting when the client is dropped: a client
/// may be dropped on a thread of another runtime, where dropping a runtime normally
/// (which blocks) panics.
#[derive(Debug)]
struct OwnRuntime(Option<tokio::runtime::Runtime>);

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}
