//! Wraps the server codec so each connection holds a connection slot for its lifetime and
//! must deliver every request within the read timeout (see `limits.rs`). volo closes a
//! connection whose decoder fails with a transport error, without replying.

use std::io;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;

use pilota::thrift::ThriftException;
use tokio::io::{AsyncRead, AsyncWrite};
use volo_thrift::codec::{Decoder, MakeCodec};
use volo_thrift::context::ThriftContext;
use volo_thrift::{EntryMessage, ThriftMessage};

use crate::limits::{ConnectionCount, ConnectionSlot, ThriftLimits};

/// Makes codecs whose decoders enforce `limits`.
#[derive(Debug, Clone)]
pub struct MakeGuardedCodec<Inner> {
    inner: Inner,
    limits: ThriftLimits,
    connections: ConnectionCount,
}

impl<Inner> MakeGuardedCodec<Inner> {
    pub fn new(inner: Inner, limits: ThriftLimits, connections: ConnectionCount) -> Self {
        MakeGuardedCodec {
            inner,
            limits,
            connections,
        }
    }
}

impl<Inner, R, W> MakeCodec<R, W> for MakeGuardedCodec<Inner>
where
    Inner: MakeCodec<R, W>,
    R: AsyncRead + Unpin + Send + Sync + 'static,
    W: AsyncWrite + Unpin + Send + Sync + 'static,
{
    type Encoder = Inner::Encoder;
    type Decoder = GuardedDecoder<Inner::Decoder>;

    fn make_codec(&self, reader: R, writer: W) -> (Self::Encoder, Self::Decoder) {
        let (encoder, decoder) = self.inner.make_codec(reader, writer);
        let decoder = GuardedDecoder {
            inner: decoder,
            limits: self.limits,
            // The accept loop took this connection's slot (see `server.rs`).
            _slot: self.connections.slot(),
        };
        (encoder, decoder)
    }
}

/// A decoder that gives up on a request not received within the read timeout.
pub struct GuardedDecoder<D> {
    inner: D,
    limits: ThriftLimits,
    _slot: ConnectionSlot,
}

impl<D: Decoder> Decoder for GuardedDecoder<D> {
    async fn decode<Msg: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
    ) -> Result<Option<ThriftMessage<Msg>>, ThriftException> {
        // volo's and pilota's decoders panic on some malformed input (a negative frame
        // length, a string longer than its frame): that must close this connection with an
        // error, not unwind through the connection task.
        let decode = AssertUnwindSafe(self.inner.decode(cx)).catch_unwind();
        let decode = async {
            decode.await.unwrap_or_else(|_| {
                Err(ThriftException::from(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "malformed request (the decoder panicked)",
                )))
            })
        };
        let Some(limit) = self.limits.read_timeout else {
            return decode.await;
        };
        match tokio::time::timeout(limit, decode).await {
            Ok(decoded) => decoded,
            Err(_) => {
                tracing::info!(
                    ?limit,
                    "closing a thrift connection: no whole request in time"
                );
                Err(ThriftException::from(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no whole request within the {limit:?} read timeout"),
                )))
            }
        }
    }

    async fn is_closed(&self) -> bool {
        self.inner.is_closed().await
    }
}
