//! One client connection: the preamble, the connection header, then calls read in order
//! and answered as they finish (HBase's client matches answers to calls by id, so a slow
//! scan does not hold up a get behind it on the same connection).
//!
//! Each call runs on tokio's blocking pool, because the service's calls block. A
//! connection has at most `max_in_flight` calls running; the reader waits for a slot
//! before it reads the next frame, so a client that floods a connection is slowed down
//! rather than buffered without bound.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Semaphore};

use crate::call::Call;
use crate::context::Context;
use crate::dispatch::{dispatch, ServiceName};
use crate::exception::{class, RemoteException};
use crate::pb;
use crate::wire::cellblock::Codec;
use crate::wire::preamble::{self, Preamble};
use crate::wire::{frame, WireError};

/// Limits of one connection.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Largest request frame, checked before its buffer is allocated.
    pub max_frame_bytes: usize,
    /// Largest connection header.
    pub max_header_bytes: usize,
    /// Calls of one connection running at once.
    pub max_in_flight: usize,
    /// Time a new connection has to send its preamble and header.
    pub handshake_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_frame_bytes: 64 * 1024 * 1024,
            max_header_bytes: 64 * 1024,
            max_in_flight: 64,
            handshake_timeout: Duration::from_secs(10),
        }
    }
}

/// What the connection header settled.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) service: ServiceName,
    pub(crate) codec: Option<Codec>,
    pub(crate) user: String,
}

/// The first allocation for a frame's bytes. The buffer grows (doubling, never past the
/// frame's length) only as bytes arrive, so a length prefix alone never reserves more than
/// this, however large the length it declares.
pub(crate) const FIRST_READ: usize = 64 * 1024;

/// Serves `stream` until the client closes it or sends something malformed.
pub async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    ctx: Arc<Context>,
    limits: ConnectionLimits,
) {
    let _ = stream.set_nodelay(true);
    let (mut read, mut write) = stream.into_split();
    let handshake = tokio::time::timeout(limits.handshake_timeout, handshake(&mut read, &limits));
    let session = match handshake.await {
        Err(_) => {
            tracing::info!(%peer, "HBase RPC client sent no connection header in time; closed");
            return;
        }
        Ok(Err(Refusal::Quiet(reason))) => {
            tracing::info!(%peer, "HBase RPC connection closed: {reason}");
            return;
        }
        Ok(Err(Refusal::Answer(reply, reason))) => {
            tracing::info!(%peer, "HBase RPC connection refused: {reason}");
            let _ = write.write_all(&reply).await;
            let _ = write.shutdown().await;
            return;
        }
        Ok(Err(Refusal::Registry)) => {
            tracing::debug!(%peer, "HBase connection registry request answered");
            let _ = write.write_all(&registry_reply(&ctx)).await;
            let _ = write.shutdown().await;
            return;
        }
        Ok(Ok(session)) => session,
    };
    let (replies, pending) = mpsc::channel::<Bytes>(limits.max_in_flight.max(1));
    let reader = read_calls(read, peer, Arc::clone(&ctx), session, limits, replies);
    tokio::join!(reader, write_replies(write, pending));
}

/// Why the handshake ended the connection: quietly, with a reply to send first, or
/// because the preamble asked only for the cluster id (`Regist`).
#[derive(Debug)]
pub(crate) enum Refusal {
    Quiet(String),
    Answer(Bytes, String),
    Registry,
}

fn fatal_reply(class: &'static str, message: String) -> Refusal {
    let header = pb::ResponseHeader {
        // Java's -1: the answer belongs to no call.
        call_id: Some(u32::MAX),
        exception: Some(RemoteException::fatal(class, message.clone()).to_proto()),
        cell_block_meta: None,
    };
    Refusal::Answer(frame::encode_response(&header, None, &[]), message)
}

/// Reads the preamble and the connection header. Generic over the reader so the fuzz
/// target drives it from a slice.
pub(crate) async fn handshake<R: AsyncRead + Unpin>(
    read: &mut R,
    limits: &ConnectionLimits,
) -> Result<Session, Refusal> {
    let mut bytes = [0u8; preamble::LEN];
    read.read_exact(&mut bytes)
        .await
        .map_err(|e| Refusal::Quiet(format!("no preamble: {e}")))?;
    match preamble::parse(bytes) {
        Ok(Preamble::Rpc) => {}
        Ok(Preamble::Registry) => return Err(Refusal::Registry),
        // HBase's client falls back when the message says which header was expected.
        Err(e) => {
            return Err(fatal_reply(
                class::FATAL_CONNECTION,
                format!("Expected HEADER=HBas\\x00\\x50 but received HEADER={bytes:02x?}: {e}"),
            ))
        }
    }
    let header = read_frame(read, limits.max_header_bytes)
        .await
        .map_err(|e| Refusal::Quiet(e.to_string()))?;
    let header =
        frame::decode_connection_header(header).map_err(|e| Refusal::Quiet(e.to_string()))?;
    session(header)
}

/// The answer to the `Regist` preamble: the cluster id, then the connection closes.
fn registry_reply(ctx: &Context) -> Bytes {
    let header = pb::ResponseHeader {
        call_id: Some(u32::MAX),
        exception: None,
        cell_block_meta: None,
    };
    let body = pb::GetConnectionRegistryResponse {
        cluster_id: ctx.topology.cluster_id(),
    }
    .encode_to_vec();
    frame::encode_response(&header, Some(&body), &[])
}

fn session(header: pb::ConnectionHeader) -> Result<Session, Refusal> {
    let name = header.service_name();
    let service = ServiceName::parse(name)
        .ok_or_else(|| fatal_reply(class::FATAL_CONNECTION, format!("unknown service {name:?}")))?;
    let codec = match header.cell_block_codec_class.as_deref() {
        None | Some("") => None,
        Some(class_name) => Some(Codec::from_class(class_name).ok_or_else(|| {
            fatal_reply(
                class::UNSUPPORTED_CODEC,
                format!("cell block codec {class_name} is not supported"),
            )
        })?),
    };
    if let Some(compressor) = header
        .cell_block_compressor_class
        .as_deref()
        .filter(|c| !c.is_empty())
    {
        return Err(fatal_reply(
            class::UNSUPPORTED_COMPRESSION,
            format!("cell block compressor {compressor} is not supported"),
        ));
    }
    let user = header
        .user_info
        .map(|u| u.effective_user)
        .unwrap_or_default();
    Ok(Session {
        service,
        codec,
        user,
    })
}

/// Reads one length-prefixed frame, checking the length before allocating anything for it
/// and growing the buffer only as its bytes arrive (see [`FIRST_READ`]).
pub(crate) async fn read_frame<R: AsyncRead + Unpin>(
    read: &mut R,
    limit: usize,
) -> Result<Bytes, WireError> {
    read_frame_sized(read, limit, FIRST_READ).await
}

/// [`read_frame`] with `first_read` as the first allocation (the fuzz target's is small).
pub(crate) async fn read_frame_sized<R: AsyncRead + Unpin>(
    read: &mut R,
    limit: usize,
    first_read: usize,
) -> Result<Bytes, WireError> {
    let len = read
        .read_u32()
        .await
        .map_err(|_| WireError::Truncated("frame length"))?;
    let len = frame::check_len(len, limit)?;
    let mut buf = BytesMut::with_capacity(len.min(first_read.max(1)));
    while buf.len() < len {
        let left = len - buf.len();
        if buf.len() == buf.capacity() {
            buf.reserve(buf.len().min(left));
        }
        let room = (buf.capacity() - buf.len()).min(left);
        let read_now = (&mut *read)
            .take(room as u64)
            .read_buf(&mut buf)
            .await
            .map_err(|_| WireError::Truncated("frame"))?;
        if read_now == 0 {
            return Err(WireError::Truncated("frame"));
        }
    }
    Ok(buf.freeze())
}

async fn read_calls(
    mut read: OwnedReadHalf,
    peer: SocketAddr,
    ctx: Arc<Context>,
    session: Session,
    limits: ConnectionLimits,
    replies: mpsc::Sender<Bytes>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_in_flight.max(1)));
    let session = Arc::new(session);
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        let payload = match read_frame(&mut read, limits.max_frame_bytes).await {
            Ok(payload) => payload,
            Err(WireError::Truncated("frame length")) => return, // the client closed
            Err(e) => {
                tracing::warn!(%peer, "malformed HBase RPC frame, connection closed: {e}");
                return;
            }
        };
        let request = match frame::decode_request(payload) {
            Ok(request) => request,
            Err(e) => {
                tracing::warn!(%peer, "malformed HBase RPC request, connection closed: {e}");
                return;
            }
        };
        if answers_inline(&session, &request) {
            // Answered here only when the row's region is open here; otherwise (a peer
            // owns it, or it waits for a region change) it goes to the blocking pool.
            let inline = strata_server::inline::here_only(|| run(&ctx, &session, &request));
            if let Some(reply) = inline {
                if replies.send(reply).await.is_err() {
                    return;
                }
                drop(slot);
                continue;
            }
        }
        let ctx = Arc::clone(&ctx);
        let session = Arc::clone(&session);
        let replies = replies.clone();
        tokio::task::spawn_blocking(move || {
            let reply = run(&ctx, &session, &request);
            let _ = replies.blocking_send(reply);
            drop(slot);
        });
    }
}

/// A one-row read is answered on the connection's own task, as the Thrift server does: it
/// is served from memory in microseconds, while the hop to the blocking pool and back costs
/// two thread wake-ups (only while its region is open here: `strata_server::inline`). Everything else (writes wait for the WAL, scans and batches can run
/// long) goes to the blocking pool, so a connection's calls still overlap.
fn answers_inline(session: &Session, request: &frame::Request) -> bool {
    session.service == ServiceName::Client && request.header.method_name() == "Get"
}

/// Runs one call and encodes its answer.
fn run(ctx: &Context, session: &Session, request: &frame::Request) -> Bytes {
    let call_id = request.header.call_id();
    let call = Call {
        method: request.header.method_name().to_string(),
        param: request.param.clone(),
        cells: request.cells.clone(),
        codec: session.codec,
        user: session.user.clone(),
    };
    let caller = ctx.caller(&call.user);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        strata_server::access::as_caller(caller, || dispatch(ctx, session.service, &call))
    }));
    let outcome = outcome.unwrap_or_else(|_| {
        Err(RemoteException::retry(
            class::IO,
            format!("the server failed while serving {}", call.method),
        ))
    });
    let mut header = pb::ResponseHeader {
        call_id: Some(call_id),
        exception: None,
        cell_block_meta: None,
    };
    match outcome {
        Ok(reply) => {
            if !reply.cells.is_empty() {
                header.cell_block_meta = Some(pb::CellBlockMeta {
                    length: Some(reply.cells.len() as u32),
                });
            }
            frame::encode_response(&header, Some(&reply.body), &reply.cells)
        }
        Err(e) => {
            tracing::debug!(method = %call.method, class = e.class, "call failed: {}", e.message);
            header.exception = Some(e.to_proto());
            frame::encode_response(&header, None, &[])
        }
    }
}

async fn write_replies(mut write: OwnedWriteHalf, mut pending: mpsc::Receiver<Bytes>) {
    while let Some(reply) = pending.recv().await {
        if write.write_all(&reply).await.is_err() {
            return;
        }
    }
    let _ = write.shutdown().await;
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context as TaskContext, Poll};

    use tokio::io::ReadBuf;

    use super::*;

    /// Bytes served in reads of any size, remembering the largest room a read offered.
    struct Recording {
        data: Vec<u8>,
        at: usize,
        largest_offer: usize,
    }

    impl AsyncRead for Recording {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut TaskContext<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            let this = self.get_mut();
            this.largest_offer = this.largest_offer.max(buf.remaining());
            let n = buf.remaining().min(this.data.len() - this.at);
            buf.put_slice(&this.data[this.at..this.at + n]);
            this.at += n;
            Poll::Ready(Ok(()))
        }
    }

    fn framed(len: u32, body: &[u8]) -> Recording {
        let mut data = len.to_be_bytes().to_vec();
        data.extend_from_slice(body);
        Recording {
            data,
            at: 0,
            largest_offer: 0,
        }
    }

    #[tokio::test]
    async fn a_huge_declared_length_reserves_only_the_first_read() {
        let mut read = framed(64 << 20, b"0123456789");
        let error = read_frame(&mut read, 64 << 20).await.unwrap_err();
        assert_eq!(error, WireError::Truncated("frame"));
        assert!(read.largest_offer <= FIRST_READ, "{}", read.largest_offer);
    }

    #[tokio::test]
    async fn a_frame_larger_than_the_first_read_arrives_whole() {
        let body: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut read = framed(body.len() as u32, &body);
        let frame = read_frame(&mut read, 1 << 20).await.unwrap();
        assert_eq!(&frame[..], &body[..]);
        // The buffer grew by doubling, each read offered at most what had arrived.
        assert!(
            read.largest_offer <= body.len() / 2 + 1,
            "{}",
            read.largest_offer
        );
        // With a tiny first read, the same frame still arrives whole.
        let mut read = framed(body.len() as u32, &body);
        let frame = read_frame_sized(&mut read, 1 << 20, 1).await.unwrap();
        assert_eq!(&frame[..], &body[..]);
    }

    #[tokio::test]
    async fn lengths_over_the_limit_are_refused_before_any_body_read() {
        let mut read = framed(1025, &[0; 2000]);
        let error = read_frame(&mut read, 1024).await.unwrap_err();
        assert!(matches!(error, WireError::FrameTooLarge { len: 1025, .. }));
        assert_eq!(read.at, 4, "only the length was read");
    }
}
