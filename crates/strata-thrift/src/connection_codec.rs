//! The codec of one server connection: requests are read whole by [`RequestReader`] (charged
//! to the service's request budget), checked and decoded by [`CompatCodec`], and must arrive
//! within the read timeout; replies are encoded by volo's framed encoder (a frame only when
//! the request came in one) and written by [`ReplyEncoder`]. The connection holds its slot
//! (`limits.rs`) for its lifetime. volo closes a connection whose decoder fails with a
//! transport error, without replying.

use std::io;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pilota::thrift::{new_protocol_exception, ProtocolExceptionKind, ThriftException};
use strata_server::request_budget::{RequestBudget, RequestCharge};
use tokio::io::{AsyncRead, AsyncWrite};
use volo::net::ext::AsyncExt;
use volo_thrift::codec::default::framed::{FramedEncoder, HasFramed, DEFAULT_MAX_FRAME_SIZE};
use volo_thrift::codec::default::{MakeZeroCopyCodec, ZeroCopyDecoder};
use volo_thrift::codec::{Decoder, MakeCodec};
use volo_thrift::context::ThriftContext;
use volo_thrift::{EntryMessage, Protocol, ThriftMessage};

use crate::codec::{CompatCodec, MakeCompatCodec};
use crate::connection_scope::ConnectionId;
use crate::limits::{ConnectionCount, ConnectionSlot, ThriftLimits};
use crate::reply_encoder::ReplyEncoder;
use crate::request_reader::{Message, ReadError, Request, RequestReader};

/// Makes the codec of each accepted connection.
#[derive(Debug, Clone)]
pub struct MakeConnectionCodec {
    limits: ThriftLimits,
    connections: ConnectionCount,
    budget: RequestBudget,
    /// The last connection id handed out.
    last_id: Arc<AtomicU64>,
}

impl MakeConnectionCodec {
    pub fn new(limits: ThriftLimits, connections: ConnectionCount, budget: RequestBudget) -> Self {
        MakeConnectionCodec {
            limits,
            connections,
            budget,
            last_id: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl<R, W> MakeCodec<R, W> for MakeConnectionCodec
where
    R: AsyncRead + Unpin + Send + Sync + 'static,
    W: AsyncWrite + AsyncExt + Unpin + Send + Sync + 'static,
{
    type Encoder = ReplyEncoder<FramedEncoder<CompatCodec>, W>;
    type Decoder = ConnectionDecoder<R>;

    fn make_codec(&self, reader: R, writer: W) -> (Self::Encoder, Self::Decoder) {
        // A server answers in the protocol of each request, whatever this says.
        let (encoder, _) = MakeCompatCodec::new(Protocol::Binary).make_codec();
        let encoder =
            ReplyEncoder::new(FramedEncoder::new(encoder, DEFAULT_MAX_FRAME_SIZE), writer);
        // The accept loop took this connection's slot (see `server.rs`).
        let slot = self.connections.slot();
        let id = ConnectionId(self.last_id.fetch_add(1, Ordering::Relaxed) + 1);
        let decoder = ConnectionDecoder::new(reader, self.budget.clone(), self.limits, slot, id);
        (encoder, decoder)
    }
}

/// Reads and decodes the requests of one connection.
pub struct ConnectionDecoder<R> {
    reader: RequestReader<R>,
    codec: CompatCodec,
    /// The budget charge of the request being answered: volo calls `decode` again only after
    /// replying, so it is returned then.
    answering: Option<RequestCharge>,
    limits: ThriftLimits,
    _slot: ConnectionSlot,
    /// Put in each request's context, for the handler (`connection_scope.rs`).
    id: ConnectionId,
}

impl<R: AsyncRead + Unpin> ConnectionDecoder<R> {
    pub(crate) fn new(
        reader: R,
        budget: RequestBudget,
        limits: ThriftLimits,
        slot: ConnectionSlot,
        id: ConnectionId,
    ) -> Self {
        let (_, codec) = MakeCompatCodec::new(Protocol::Binary).make_codec();
        ConnectionDecoder {
            reader: RequestReader::new(reader, budget),
            codec,
            answering: None,
            limits,
            _slot: slot,
            id,
        }
    }
}

impl<R: AsyncRead + Unpin + Send + Sync + 'static> Decoder for ConnectionDecoder<R> {
    async fn decode<Msg: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
    ) -> Result<Option<ThriftMessage<Msg>>, ThriftException> {
        self.answering = None;
        let request = match self.limits.read_timeout {
            None => self.reader.next().await,
            Some(limit) => match tokio::time::timeout(limit, self.reader.next()).await {
                Ok(read) => read,
                Err(_) => {
                    tracing::info!(
                        ?limit,
                        "closing a thrift connection: no whole request in time"
                    );
                    return Err(io_error(
                        io::ErrorKind::TimedOut,
                        format!("no whole request within the {limit:?} read timeout"),
                    ));
                }
            },
        };
        let request = match request {
            Ok(Some(request)) => request,
            Ok(None) => return Ok(None),
            Err(e) => return Err(read_error(cx, e)),
        };
        cx.stats_mut().record_read_end_at();
        self.decode_request(cx, request)
    }
}

impl<R> ConnectionDecoder<R> {
    fn decode_request<Msg: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
        request: Request,
    ) -> Result<Option<ThriftMessage<Msg>>, ThriftException> {
        if request.framed {
            cx.extensions_mut().insert(HasFramed);
        }
        cx.extensions_mut().insert(self.id);
        self.answering = Some(request.charge);
        // pilota's decoders panic on some malformed input the checks may still miss: that must
        // fail this request, not unwind through the connection task.
        let codec = &mut self.codec;
        let decoded = AssertUnwindSafe(|| match request.message {
            Message::Raw(mut bytes) => codec.decode(cx, &mut bytes),
            Message::Transcoded(binary) => codec.decode_transcoded(cx, binary),
        });
        std::panic::catch_unwind(decoded).unwrap_or_else(|_| {
            Err(new_protocol_exception(
                ProtocolExceptionKind::InvalidData,
                crate::codec::DECODER_PANICKED.to_string(),
            ))
        })
    }
}

/// The exception a failed read ends the connection with. volo answers a malformed request
/// with it, in the request's framing and protocol, before closing the connection.
fn read_error<Cx: ThriftContext>(cx: &mut Cx, e: ReadError) -> ThriftException {
    match e {
        ReadError::Io(e) => ThriftException::from(e),
        ReadError::Truncated => io_error(io::ErrorKind::UnexpectedEof, e.to_string()),
        ReadError::Invalid {
            reason,
            framed,
            compact,
        } => {
            if framed {
                cx.extensions_mut().insert(HasFramed);
            }
            if compact {
                crate::codec::mark_compact(cx);
            }
            new_protocol_exception(ProtocolExceptionKind::InvalidData, reason)
        }
    }
}

fn io_error(kind: io::ErrorKind, message: String) -> ThriftException {
    ThriftException::from(io::Error::new(kind, message))
}
