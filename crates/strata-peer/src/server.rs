//! The owner's side: answers forwarded requests from the regions open on this server.

use std::future::Future;
use std::sync::Arc;

use strata_server::remote::{admin_codec, RowSpan};
use strata_server::{Result, Service};
use tokio_stream::wrappers::TcpListenerStream;
use tonic::{Request, Response, Status};

use crate::convert as c;
use crate::generated::peer_server::{Peer, PeerServer as GeneratedServer};
use crate::messages as m;
use crate::status::error_to_status;
use crate::MAX_MESSAGE_BYTES;

/// Serves the peer service from a local [`Service`]. Every call runs the service's
/// blocking `serve_*` method on tokio's blocking pool, so a slow write (a WAL sync, a full
/// memstore) never stalls the runtime's workers.
#[derive(Clone)]
pub struct PeerServer {
    service: Arc<Service>,
}

impl PeerServer {
    /// The peer service of `service`.
    pub fn new(service: Arc<Service>) -> Self {
        PeerServer { service }
    }

    /// As a tonic service, with the message size limit of [`MAX_MESSAGE_BYTES`].
    pub fn into_service(self) -> GeneratedServer<Self> {
        GeneratedServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES)
    }

    /// Runs `call` with the service on the blocking pool; an error becomes the status
    /// the client rebuilds it from.
    async fn blocking<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Service) -> Result<T> + Send + 'static,
    ) -> std::result::Result<Response<T>, Status> {
        use tokio::runtime::{Handle, RuntimeFlavor};
        let service = Arc::clone(&self.service);
        // On a multi-threaded runtime the call runs on this task, the runtime moving its
        // worker's other tasks elsewhere meanwhile: a cached read takes microseconds, less
        // than the two thread wake-ups of a hop to the blocking pool.
        let inline =
            Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread);
        let outcome = if inline {
            Ok(tokio::task::block_in_place(|| call(&service)))
        } else {
            tokio::task::spawn_blocking(move || call(&service)).await
        };
        match outcome {
            Ok(Ok(answer)) => Ok(Response::new(answer)),
            Ok(Err(e)) => Err(error_to_status(&e)),
            Err(e) => Err(Status::internal(format!("peer request failed: {e}"))),
        }
    }
}

#[tonic::async_trait]
impl Peer for PeerServer {
    async fn get(
        &self,
        request: Request<m::GetRequest>,
    ) -> std::result::Result<Response<m::GetResponse>, Status> {
        let request = request.into_inner();
        self.blocking(move |service| {
            let table = c::peer_table_from_msg(&request.table, request.schema)?;
            let get = c::get_from_msg(request.get)?;
            let row = service.serve_get(&table, &get)?;
            Ok(m::GetResponse {
                row: row.as_ref().map(c::row_to_msg),
            })
        })
        .await
    }

    async fn mutate(
        &self,
        request: Request<m::MutateRequest>,
    ) -> std::result::Result<Response<m::MutateResponse>, Status> {
        let request = request.into_inner();
        self.blocking(move |service| {
            let table = c::peer_table_from_msg(&request.table, request.schema)?;
            let write = c::write_from_msg(request.dialect, &request.durability)?;
            let cells = c::cells_from_msg(request.cells)?;
            service.serve_mutate(&table, cells, write)?;
            Ok(m::MutateResponse {})
        })
        .await
    }

    async fn mutate_if(
        &self,
        request: Request<m::MutateIfRequest>,
    ) -> std::result::Result<Response<m::MutateIfResponse>, Status> {
        let request = request.into_inner();
        self.blocking(move |service| {
            let table = c::peer_table_from_msg(&request.table, request.schema)?;
            let write = c::write_from_msg(request.dialect, &request.durability)?;
            let expected = c::expected_from_msg(request.expected)?;
            let cells = c::cells_from_msg(request.cells)?;
            let applied = service.serve_mutate_if(&table, &request.row, &expected, cells, write)?;
            Ok(m::MutateIfResponse { applied })
        })
        .await
    }

    async fn maintain(
        &self,
        request: Request<m::MaintainRequest>,
    ) -> std::result::Result<Response<m::MaintainResponse>, Status> {
        let request = request.into_inner();
        self.blocking(move |service| {
            let table = c::peer_table_from_msg(&request.table, request.schema)?;
            let work = c::work_from_msg(request.work)?;
            let range = RowSpan {
                start: request.start,
                end: request.end,
            };
            let bytes = service.serve_maintain(&table, &range, work)?;
            Ok(m::MaintainResponse { bytes })
        })
        .await
    }

    async fn admin(
        &self,
        request: Request<m::AdminRequest>,
    ) -> std::result::Result<Response<m::AdminResponse>, Status> {
        let request = request.into_inner();
        self.blocking(move |service| {
            let request = admin_codec::decode_request(&request.request)?;
            let reply = service.serve_admin(request)?;
            Ok(m::AdminResponse {
                reply: admin_codec::encode_reply(&reply).into(),
            })
        })
        .await
    }

    async fn scan_chunk(
        &self,
        request: Request<m::ScanChunkRequest>,
    ) -> std::result::Result<Response<m::ScanChunkResponse>, Status> {
        let request = request.into_inner();
        self.blocking(move |service| {
            let (table, chunk) = c::chunk_from_msg(request)?;
            let rows = service.serve_scan_chunk(&table, &chunk)?;
            Ok(m::ScanChunkResponse {
                rows: rows.iter().map(c::row_to_msg).collect(),
            })
        })
        .await
    }
}

/// The peer service of `service` as routes, for a server that mounts it next to others.
pub fn router(service: Arc<Service>) -> tonic::service::Routes {
    tonic::service::Routes::new(PeerServer::new(service).into_service())
}

/// Serves the peer service of `service` on `listener` until `shutdown` completes.
pub async fn serve(
    service: Arc<Service>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> std::result::Result<(), tonic::transport::Error> {
    tonic::transport::Server::builder()
        .tcp_nodelay(true)
        .add_routes(router(service))
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), shutdown)
        .await
}
