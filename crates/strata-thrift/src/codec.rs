//! The innermost layer of the Thrift codec: volo's own, except that compact messages are first
//! transcoded to the binary protocol (see `compact.rs` for the pilota bugs this avoids).
//!
//! Binary messages and all encoding go straight to volo's `ThriftCodec`; only compact decoding
//! is diverted. Replies still go out in the protocol of the request, because the compact marker
//! volo's encoder looks for is set here (and the binary one its decoder sets is removed).
//! Setting the marker *before* decoding also makes decode-error replies compact; volo's own
//! codec answers those in binary, which compact clients cannot read.

use std::panic::{catch_unwind, AssertUnwindSafe};

use bytes::{Buf, Bytes};
use pilota::thrift::{new_protocol_exception, ProtocolExceptionKind, ThriftException};
use tokio::io::{AsyncBufReadExt, AsyncRead};
use volo::util::buf_reader::BufReader;
use volo_thrift::codec::default::thrift::{MakeThriftCodec, ThriftCodec};
use volo_thrift::codec::default::{MakeZeroCopyCodec, ZeroCopyDecoder, ZeroCopyEncoder};
use volo_thrift::context::ThriftContext;
use volo_thrift::{
    EntryMessage, LinkedBytes, Protocol, ProtocolApacheCompact, ProtocolBinary, ThriftMessage,
};

use crate::binary_check::{
    binary_message_len, check_binary_message, check_transcoded_message, CheckError,
};
use crate::compact::{compact_to_binary, TranscodeError, COMPACT_PROTOCOL_ID};

/// Makes [`CompatCodec`]s. `protocol` only matters to a client (what it sends); a server
/// answers in the protocol of each request.
#[derive(Debug, Clone, Copy)]
pub struct MakeCompatCodec {
    inner: MakeThriftCodec,
}

impl MakeCompatCodec {
    pub fn new(protocol: Protocol) -> Self {
        MakeCompatCodec {
            inner: MakeThriftCodec::new().with_protocol(protocol),
        }
    }
}

impl MakeZeroCopyCodec for MakeCompatCodec {
    type Encoder = CompatCodec;
    type Decoder = CompatCodec;

    fn make_codec(&self) -> (CompatCodec, CompatCodec) {
        let (inner, _) = self.inner.make_codec();
        (CompatCodec { inner }, CompatCodec { inner })
    }
}

#[derive(Debug, Clone, Copy)]
pub struct CompatCodec {
    inner: ThriftCodec,
}

/// Tells volo's encoder to answer in compact: its binary marker would win, so drop it.
pub(crate) fn mark_compact<Cx: ThriftContext>(cx: &mut Cx) {
    let ext = cx.extensions_mut();
    ext.remove::<ProtocolBinary>();
    ext.insert(ProtocolApacheCompact);
}

/// Incomplete is only final for a framed message (the frame ended inside it).
fn to_exception(e: TranscodeError) -> ThriftException {
    invalid_data(e.to_string())
}

fn invalid_data(reason: String) -> ThriftException {
    new_protocol_exception(ProtocolExceptionKind::InvalidData, reason)
}

/// The decode error of a message that made pilota panic (the fuzz harness looks for it).
pub const DECODER_PANICKED: &str = "malformed binary message (the decoder panicked)";

/// volo's synchronous decode of a complete, checked binary message, with pilota's panics
/// contained: the generated decoders ignore a container's declared element types, so a string
/// read where a map said i64 could overrun the frame inside pilota (`Bytes::split_to`). The
/// schema check (`binary_check.rs`) now rejects such messages first; this stays as the second
/// line, failing any panic as invalid data.
fn decode_contained<Msg: Send + EntryMessage, Cx: ThriftContext>(
    inner: &mut ThriftCodec,
    cx: &mut Cx,
    bytes: &mut Bytes,
) -> Result<Option<ThriftMessage<Msg>>, ThriftException> {
    catch_unwind(AssertUnwindSafe(|| inner.decode(cx, bytes)))
        .unwrap_or_else(|_| Err(invalid_data(DECODER_PANICKED.into())))
}

impl CompatCodec {
    /// Decodes a complete binary message (the transcoded compact one) with volo's decoder,
    /// after the same check as a binary request: transcoding keeps every declared type.
    pub(crate) fn decode_transcoded<Msg: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
        binary: Bytes,
    ) -> Result<Option<ThriftMessage<Msg>>, ThriftException> {
        let mut binary = binary;
        let msg = match check_transcoded_message(&binary) {
            Ok(()) => decode_contained(&mut self.inner, cx, &mut binary),
            Err(e) => Err(invalid_data(e.to_string())),
        };
        mark_compact(cx);
        msg
    }
}

/// The first byte of every strict binary message (version 1).
const BINARY_FIRST_BYTE: u8 = 0x80;

impl CompatCodec {
    /// An unframed binary message: volo's async reader would allocate whatever a length
    /// field says (up to 2 GiB) before reading it, and panic on a negative one. Instead read
    /// exactly one message, walking it to learn its length (capped like compact messages),
    /// then decode it from memory.
    async fn decode_binary_buffered<
        Msg: Send + EntryMessage,
        Cx: ThriftContext,
        R: AsyncRead + Unpin + Send + Sync,
    >(
        &mut self,
        cx: &mut Cx,
        reader: &mut BufReader<R>,
    ) -> Result<Option<ThriftMessage<Msg>>, ThriftException> {
        let mut need = 1;
        let message = loop {
            let buf = match reader.fill_buf_at_least(need).await {
                Ok(buf) => buf,
                Err(e) => {
                    cx.stats_mut().record_read_end_at();
                    return Err(e.into());
                }
            };
            match binary_message_len(buf) {
                Ok(len) => break Bytes::copy_from_slice(&buf[..len]),
                Err(CheckError::Incomplete { need: more }) => need = more,
                Err(e) => {
                    cx.stats_mut().record_read_end_at();
                    return Err(invalid_data(e.to_string()));
                }
            }
        };
        reader.consume(message.len());
        cx.stats_mut().record_read_end_at();
        let mut message = message;
        decode_contained(&mut self.inner, cx, &mut message)
    }
}

impl ZeroCopyDecoder for CompatCodec {
    /// A whole framed (or TTHeader) payload.
    fn decode<Msg: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
        bytes: &mut Bytes,
    ) -> Result<Option<ThriftMessage<Msg>>, ThriftException> {
        if bytes.first() != Some(&COMPACT_PROTOCOL_ID) {
            // pilota's reader would panic on a length past the end of the frame, and its
            // generated decoders would reserve counts read from misdeclared containers.
            check_binary_message(bytes).map_err(|e| invalid_data(e.to_string()))?;
            return decode_contained(&mut self.inner, cx, bytes);
        }
        mark_compact(cx);
        let (binary, used) = compact_to_binary(bytes).map_err(to_exception)?;
        bytes.advance(used);
        self.decode_transcoded(cx, binary.freeze())
    }

    /// An unframed (buffered) message straight off the connection: read exactly one compact
    /// message (its length is only known by walking it), transcode it and decode that.
    async fn decode_async<
        Msg: Send + EntryMessage,
        Cx: ThriftContext,
        R: AsyncRead + Unpin + Send + Sync,
    >(
        &mut self,
        cx: &mut Cx,
        reader: &mut BufReader<R>,
    ) -> Result<Option<ThriftMessage<Msg>>, ThriftException> {
        let first = match reader.fill_buf_at_least(1).await {
            Ok(buf) => buf.first().copied(),
            Err(_) => None,
        };
        if first == Some(BINARY_FIRST_BYTE) {
            return self.decode_binary_buffered(cx, reader).await;
        }
        if first != Some(COMPACT_PROTOCOL_ID) {
            // Nothing to read, or not a message: volo's codec handles (and reports) both.
            return self.inner.decode_async(cx, reader).await;
        }
        mark_compact(cx);
        let mut need = 1;
        let (binary, used) = loop {
            let buf = match reader.fill_buf_at_least(need).await {
                Ok(buf) => buf,
                Err(e) => {
                    cx.stats_mut().record_read_end_at();
                    return Err(e.into());
                }
            };
            match compact_to_binary(buf) {
                Ok(done) => break done,
                // The walk stopped at the first byte it lacked, so `need` grows every round and
                // jumps straight past long strings.
                Err(TranscodeError::Incomplete { need: more }) => need = more,
                Err(e) => {
                    cx.stats_mut().record_read_end_at();
                    return Err(to_exception(e));
                }
            }
        };
        reader.consume(used);
        cx.stats_mut().record_read_end_at();
        self.decode_transcoded(cx, binary.freeze())
    }
}

impl ZeroCopyEncoder for CompatCodec {
    fn encode<Msg: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
        linked_bytes: &mut LinkedBytes,
        msg: ThriftMessage<Msg>,
    ) -> Result<(), ThriftException> {
        self.inner.encode(cx, linked_bytes, msg)
    }

    fn size<Msg: Send + EntryMessage, Cx: ThriftContext>(
        &mut self,
        cx: &mut Cx,
        msg: &ThriftMessage<Msg>,
    ) -> Result<(usize, usize), ThriftException> {
        self.inner.size(cx, msg)
    }
}
