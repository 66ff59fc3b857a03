//! Writes each reply to the connection. volo's own writer is only built together with its
//! reader (`DefaultMakeCodec`), which `connection_codec.rs` replaces, so this does the same
//! few steps: size the message, encode it into one reused buffer, write it out, flush.

use pilota::thrift::ThriftException;
use tokio::io::{AsyncWrite, AsyncWriteExt, Interest};
use volo::net::ext::AsyncExt;
use volo_thrift::codec::default::ZeroCopyEncoder;
use volo_thrift::codec::Encoder;
use volo_thrift::context::ThriftContext;
use volo_thrift::{EntryMessage, LinkedBytes, ThriftMessage};

/// Encodes replies with `E` and writes them to `W`.
pub struct ReplyEncoder<E, W> {
    encoder: E,
    writer: W,
    buf: LinkedBytes,
}

impl<E, W> ReplyEncoder<E, W> {
    pub fn new(encoder: E, writer: W) -> Self {
        ReplyEncoder {
            encoder,
            writer,
            buf: LinkedBytes::new(),
        }
    }
}

impl<E, W> Encoder for ReplyEncoder<E, W>
where
    E: ZeroCopyEncoder,
    W: AsyncWrite + AsyncExt + Unpin + Send + Sync + 'static,
{
    async fn encode<Req: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
        msg: ThriftMessage<Req>,
    ) -> Result<(), ThriftException> {
        cx.stats_mut().record_encode_start_at();
        // Emptied before and after: a failed write must not leave the next reply a stale
        // prefix, and large values the buffer points into are freed as soon as they are sent.
        self.buf.reset();
        let result = self.encode_and_write(cx, msg).await;
        self.buf.reset();
        cx.stats_mut().record_write_end_at();
        result
    }

    async fn is_closed(&self) -> bool {
        match self
            .writer
            .ready(Interest::READABLE | Interest::WRITABLE)
            .await
        {
            Ok(ready) => ready.is_read_closed() || ready.is_write_closed(),
            Err(_) => true,
        }
    }
}

impl<E, W> ReplyEncoder<E, W>
where
    E: ZeroCopyEncoder,
    W: AsyncWrite + Unpin,
{
    async fn encode_and_write<Req: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
        msg: ThriftMessage<Req>,
    ) -> Result<(), ThriftException> {
        let (size, reserve) = self.encoder.size(cx, &msg)?;
        cx.stats_mut().set_write_size(size);
        self.buf.reserve(reserve);
        self.encoder.encode(cx, &mut self.buf, msg)?;
        cx.stats_mut().record_encode_end_at();
        cx.stats_mut().record_write_start_at();
        self.buf.write_all_vectored(&mut self.writer).await?;
        self.writer.flush().await?;
        Ok(())
    }
}
