//! Entry points for the Thrift fuzz targets (`fuzz/fuzz_targets/thrift_*.rs`) and their stable
//! corpus replay (`tests/fuzz_corpus_test.rs`): the request decoders of the server, fed
//! arbitrary bytes. Each panics only when an invariant breaks; a decode error is an acceptable
//! outcome (the server answers it and closes the connection).

use std::future::Future;
use std::io::Cursor;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use bytes::{Bytes, BytesMut};
use pilota::thrift::binary::TBinaryProtocol;
use pilota::thrift::{TInputProtocol, TMessageIdentifier};
use strata_server::request_budget::RequestBudget;
use volo_thrift::codec::default::{MakeZeroCopyCodec, ZeroCopyDecoder};
use volo_thrift::codec::Decoder;
use volo_thrift::context::ServerContext;
use volo_thrift::{EntryMessage, Protocol, ThriftException, ThriftMessage};

use crate::codec::{MakeCompatCodec, DECODER_PANICKED};
use crate::compact::{compact_to_binary, TranscodeError, COMPACT_PROTOCOL_ID};
use crate::connection_codec::ConnectionDecoder;
use crate::connection_scope::ConnectionId;
use crate::gen::volo_gen::hbase::HbaseRequestRecv;
use crate::limits::{ConnectionCount, ThriftLimits};

/// Messages decoded from one buffered input, at most.
const MAX_MESSAGES: usize = 64;

/// Transcodes `input` from compact to binary. Invariants: the transcoder never claims more
/// bytes than it was given, and every prefix of a message it accepted is reported incomplete
/// with a need that the prefix does not meet but the message does (the buffered reader
/// relies on this to know how much more to read).
pub fn compact(input: &[u8]) {
    let Ok((_, used)) = compact_to_binary(input) else {
        return;
    };
    assert!(used <= input.len(), "used {used} of {} bytes", input.len());
    let cuts = [0, used / 2, used.saturating_sub(1)];
    for cut in cuts.into_iter().filter(|&c| c < used) {
        match compact_to_binary(&input[..cut]) {
            Err(TranscodeError::Incomplete { need }) => {
                assert!(
                    need > cut && need <= used,
                    "need {need} for a {cut}-byte prefix"
                );
            }
            other => panic!("a {cut}-byte prefix of a {used}-byte message: {other:?}"),
        }
    }
}

/// Decodes `payload` as the body of one frame, the way the server does after reading a frame
/// header: binary, or compact (transcoded). Invariants: a decoded request re-encodes and
/// decodes again to the same encoded size; pilota never panics on a message the request
/// check (`binary_check.rs`) let through.
pub fn framed(payload: &[u8]) {
    let (_, mut decoder) = MakeCompatCodec::new(Protocol::Binary).make_codec();
    let mut cx = ServerContext::default();
    let mut bytes = Bytes::copy_from_slice(payload);
    match decoder.decode::<HbaseRequestRecv, _>(&mut cx, &mut bytes) {
        Ok(Some(msg)) => check_reencodes(payload, msg),
        Ok(None) => {}
        Err(e) => assert_checked(&e),
    }
}

/// `codec.rs` turns a pilota panic into this error; the request check should have rejected
/// the message first.
fn assert_checked(e: &ThriftException) {
    let reason = e.to_string();
    assert!(!reason.contains(DECODER_PANICKED), "{reason}");
}

/// Reads requests from `stream` the way a server connection does (framed or buffered, binary
/// or compact, each detected per message) until it ends or fails.
pub fn buffered(stream: &[u8]) {
    let mut decoder = stream_decoder(stream);
    for _ in 0..MAX_MESSAGES {
        match decode_next(&mut decoder) {
            Some(Ok(Some(_))) => {}
            Some(Err(e)) => return assert_checked(&e),
            _ => return,
        }
    }
}

/// A server connection's decoder over `stream`, with no read timeout and a budget that
/// never waits.
pub(crate) fn stream_decoder(stream: &[u8]) -> ConnectionDecoder<Cursor<Vec<u8>>> {
    let connections = ConnectionCount::default();
    let _taken = connections.try_acquire(1);
    let limits = ThriftLimits {
        read_timeout: None,
        ..ThriftLimits::default()
    };
    let budget = RequestBudget::new(usize::MAX);
    let (slot, id) = (connections.slot(), ConnectionId(1));
    ConnectionDecoder::new(Cursor::new(stream.to_vec()), budget, limits, slot, id)
}

/// The next request of `decoder`'s stream; `None` if decoding had to wait (it never should:
/// the stream is in memory).
pub(crate) fn decode_next(
    decoder: &mut ConnectionDecoder<Cursor<Vec<u8>>>,
) -> Option<Result<Option<ThriftMessage<HbaseRequestRecv>>, ThriftException>> {
    let mut cx = ServerContext::default();
    poll_once(decoder.decode::<HbaseRequestRecv, _>(&mut cx))
}

fn poll_once<F: Future>(future: F) -> Option<F::Output> {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

/// The request's binary message header, read from the input (transcoded if compact).
fn message_ident(payload: &[u8]) -> Option<TMessageIdentifier> {
    let mut binary = if payload.first() == Some(&COMPACT_PROTOCOL_ID) {
        compact_to_binary(payload).ok()?.0.freeze()
    } else {
        Bytes::copy_from_slice(payload)
    };
    TBinaryProtocol::new(&mut binary, true)
        .read_message_begin()
        .ok()
}

fn check_reencodes(payload: &[u8], msg: ThriftMessage<HbaseRequestRecv>) {
    let (Ok(request), Some(ident)) = (msg.data, message_ident(payload)) else {
        return;
    };
    let first = encode(&request);
    let mut bytes = first.clone().freeze();
    let again = match HbaseRequestRecv::decode(&mut TBinaryProtocol::new(&mut bytes, true), &ident)
    {
        Ok(again) => again,
        Err(e) => panic!(
            "a decoded {} request does not decode re-encoded: {e}",
            ident.name
        ),
    };
    assert!(bytes.is_empty(), "re-decoding left {} bytes", bytes.len());
    // Maps encode in hash order, so sizes (not bytes) are what must agree.
    assert_eq!(encode(&again).len(), first.len(), "{}", ident.name);
}

fn encode(request: &HbaseRequestRecv) -> BytesMut {
    let mut buf = BytesMut::new();
    let mut protocol = TBinaryProtocol::new(&mut buf, true);
    let size = request.size(&mut protocol);
    if let Err(e) = request.encode(&mut protocol) {
        panic!("a decoded request does not encode: {e}");
    }
    assert_eq!(size, buf.len(), "size() disagrees with the encoding");
    buf
}
