//! Entry points of the native RPC fuzz targets (`fuzz/fuzz_targets/hrpc_*.rs`), also
//! replayed over the committed corpus by `tests/fuzz_corpus_test.rs` on stable Rust. Each
//! panics only when an invariant breaks; a decode error is an acceptable outcome (the server
//! answers it with an exception or closes the connection).

use std::future::Future;
use std::io;
use std::pin::{pin, Pin};
use std::task::{Context as TaskContext, Poll, Waker};

use bytes::{Bytes, BytesMut};
use prost::Message;
use strata_engine::Scan;
use strata_server::table::{RegionInfo, ServedBy};
use tokio::io::{AsyncRead, ReadBuf};

use crate::call::Call;
use crate::client::scanners::{Admit, Cut};
use crate::client::{filters, mutate, mutations, reads, scan as scan_call};
use crate::connection::{self, ConnectionLimits, Refusal};
use crate::dispatch::ServiceName;
use crate::pb;
use crate::wire::cellblock::{self, Codec};
use crate::wire::frame;

/// The first allocation for a frame in the connection target: small, so that inputs of a
/// few kilobytes reach the buffer's growth (the server starts at 64 KiB).
const FIRST_READ: usize = 16;
/// Frames read after the connection header, at most.
const MAX_FRAMES: usize = 16;

/// Treats `data` as everything a client sent on one connection, read as the server reads
/// it: the six-byte preamble, the connection header frame, then call frames, each split
/// into header, parameter and cell block and decoded as its method's request. The real
/// limits apply (a 64 MiB frame is allowed), so a huge declared length must not reserve
/// memory ahead of the bytes that arrive: no read is offered more room than what already
/// arrived or the first allocation. A refusal sent back must be a well-formed fatal
/// response. Returns how many call frames were read.
pub fn connection(data: &[u8]) -> usize {
    let limits = ConnectionLimits::default();
    let mut stream = Stream {
        data,
        at: 0,
        first_read: FIRST_READ.max(crate::connection::FIRST_READ),
    };
    let session = match poll_once(connection::handshake(&mut stream, &limits)) {
        Ok(session) => session,
        Err(Refusal::Registry) => {
            assert!(
                data.starts_with(b"Regist"),
                "a registry answer to {data:02x?}"
            );
            return 0;
        }
        Err(Refusal::Answer(reply, reason)) => {
            check_fatal_reply(&reply, &reason);
            return 0;
        }
        Err(Refusal::Quiet(_)) => return 0,
    };
    assert!(
        data.starts_with(b"HBas\x00\x50"),
        "a session without the RPC preamble"
    );
    let header = connection_header(data);
    assert_eq!(
        ServiceName::parse(header.service_name()),
        Some(session.service)
    );
    let declared = header
        .cell_block_codec_class
        .as_deref()
        .is_some_and(|c| !c.is_empty());
    assert_eq!(session.codec.is_some(), declared, "codec of {header:?}");
    let user = header.user_info.map(|u| u.effective_user);
    assert_eq!(session.user, user.unwrap_or_default());
    // The rest with a small first allocation, so the growth is exercised.
    stream.first_read = FIRST_READ;
    let mut frames = 0;
    while frames < MAX_FRAMES {
        let read = connection::read_frame_sized(&mut stream, limits.max_frame_bytes, FIRST_READ);
        let Ok(payload) = poll_once(read) else {
            break;
        };
        frames += 1;
        match frame::decode_request(payload) {
            Ok(request) => check_request(session.codec, request),
            Err(_) => break,
        }
    }
    frames
}

/// Decodes `data` as one request frame's payload (the bytes after its length); its first
/// byte picks the connection's codec (0: none, 1: KeyValueCodec, 2: with tags). A decoded
/// request encodes back to a frame that decodes to the same parts, and its parameter is
/// decoded as the method's request: filters, time ranges, scan bounds, mutations and the
/// cells they take from the block. Returns whether the frame decoded.
pub fn request(data: &[u8]) -> bool {
    let Some((&selector, payload)) = data.split_first() else {
        return false;
    };
    let codec = match selector % 3 {
        0 => None,
        1 => Some(Codec::KeyValue),
        _ => Some(Codec::KeyValueWithTags),
    };
    let Ok(request) = frame::decode_request(Bytes::copy_from_slice(payload)) else {
        return false;
    };
    let again = frame::encode_request(&request.header, &request.param, &request.cells);
    let length = u32::from_be_bytes([again[0], again[1], again[2], again[3]]);
    assert_eq!(length as usize, again.len() - 4, "frame length prefix");
    match frame::decode_request(again.slice(4..)) {
        Ok(back) => {
            assert_eq!(back.header, request.header, "header after a round trip");
            assert_eq!(back.param, request.param, "parameter after a round trip");
            assert_eq!(back.cells, request.cells, "cells after a round trip");
        }
        Err(e) => panic!("a re-encoded request does not decode: {e}"),
    }
    check_request(codec, request);
    true
}

/// Decodes `data` as a cell block; the first byte picks the codec (even: KeyValueCodec,
/// odd: with tags). Decoded cells encode back to the same bytes (without tags: to no more
/// bytes, decoding to the same cells), and `take` of exactly that many cells agrees while
/// one more fails. Returns how many cells decoded.
pub fn cell_block(data: &[u8]) -> usize {
    let Some((&selector, block)) = data.split_first() else {
        return 0;
    };
    let codec = if selector % 2 == 0 {
        Codec::KeyValue
    } else {
        Codec::KeyValueWithTags
    };
    let block = Bytes::copy_from_slice(block);
    let Ok(cells) = cellblock::decode(codec, block.clone()) else {
        return 0;
    };
    let mut encoded = BytesMut::new();
    for cell in &cells {
        cellblock::encode(cell, &mut encoded);
    }
    assert_eq!(
        encoded.len(),
        cells.iter().map(cellblock::encoded_len).sum::<usize>(),
        "encoded_len"
    );
    if codec == Codec::KeyValue {
        assert_eq!(&encoded[..], &block[..], "cells re-encode to other bytes");
    } else {
        assert!(encoded.len() <= block.len(), "tags removed, the block grew");
        match cellblock::decode(Codec::KeyValue, encoded.freeze()) {
            Ok(again) => assert_eq!(again, cells, "cells without their tags"),
            Err(e) => panic!("re-encoded cells do not decode: {e}"),
        }
    }
    let mut rest = block.clone();
    match cellblock::take(codec, &mut rest, cells.len()) {
        Ok(taken) => assert_eq!(taken, cells, "take of every cell"),
        Err(e) => panic!("take of the {} cells decode found: {e}", cells.len()),
    }
    assert!(rest.is_empty(), "take left {} bytes", rest.len());
    let mut rest = block;
    assert!(
        cellblock::take(codec, &mut rest, cells.len() + 1).is_err(),
        "took a cell more than the block holds"
    );
    cells.len()
}

/// Decodes `data` as a Scan message, as a Scan call's `scan` field, and checks what the
/// server makes of it in four regions (the whole table, and the first, middle and last of
/// three regions split at `g` and `p`): the rows it answers from a table holding every
/// row near the scan's and the region's bounds are exactly, and in the scan's order, the
/// rows HBase's semantics give (start and stop rows with their inclusive flags, reversed,
/// only the region's rows). Its filter runs over two small rows and keeps only cells they
/// had. Returns how many rows were answered in all.
pub fn scan(data: &[u8]) -> usize {
    match pb::Scan::decode(data) {
        Ok(scan) => check_scan(&scan),
        Err(_) => 0,
    }
}

/// Reading from memory never waits: a pending read would be a bug.
fn poll_once<F: Future>(future: F) -> F::Output {
    let mut cx = TaskContext::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("a read from memory waited"),
    }
}

/// A connection's bytes as a reader that checks the room each read is offered.
struct Stream<'a> {
    data: &'a [u8],
    at: usize,
    /// The first allocation the reader under test may make for a frame.
    first_read: usize,
}

impl AsyncRead for Stream<'_> {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let offered = buf.remaining();
        assert!(
            offered <= this.first_read.max(this.at),
            "a read was offered {offered} bytes after {} bytes arrived",
            this.at
        );
        let rest = this.data.get(this.at..).unwrap_or_default();
        let n = offered.min(rest.len());
        buf.put_slice(&rest[..n]);
        this.at += n;
        Poll::Ready(Ok(()))
    }
}

/// The connection header of a stream that the handshake accepted.
fn connection_header(data: &[u8]) -> pb::ConnectionHeader {
    let len = match data.get(6..10) {
        Some(&[a, b, c, d]) => u32::from_be_bytes([a, b, c, d]) as usize,
        _ => panic!("an accepted handshake without a header length"),
    };
    let Some(bytes) = data.get(10..10 + len) else {
        panic!("an accepted handshake with a truncated header");
    };
    match pb::ConnectionHeader::decode(bytes) {
        Ok(header) => header,
        Err(e) => panic!("an accepted connection header does not decode: {e}"),
    }
}

/// A refusal: one frame, for no call (`-1`), carrying the exception and nothing else.
fn check_fatal_reply(reply: &Bytes, reason: &str) {
    let Some((prefix, _)) = reply.split_first_chunk::<4>() else {
        panic!("a {}-byte reply has no length", reply.len());
    };
    let mut body = reply.slice(4..);
    assert_eq!(u32::from_be_bytes(*prefix) as usize, body.len(), "length");
    let header = match pb::ResponseHeader::decode_length_delimited(&mut body) {
        Ok(header) => header,
        Err(e) => panic!("our refusal's header does not decode: {e}"),
    };
    assert_eq!(
        header.call_id,
        Some(u32::MAX),
        "a refusal belongs to no call"
    );
    let Some(exception) = header.exception else {
        panic!("a refusal without an exception ({reason})");
    };
    assert!(!exception.exception_class_name().is_empty());
    assert!(body.is_empty(), "{} bytes after a refusal", body.len());
}

/// Decodes a request's parameter as its method's message and checks what the handlers
/// would make of it, short of touching a table.
fn check_request(codec: Option<Codec>, request: frame::Request) {
    let call = Call {
        method: request.header.method_name().to_string(),
        param: request.param,
        cells: request.cells,
        codec,
        user: String::new(),
    };
    match call.method.as_str() {
        "Get" => {
            if let Ok(r) = call.param::<pb::GetRequest>() {
                check_get(&r.get);
            }
        }
        "Scan" => {
            if let Some(scan) = call.param::<pb::ScanRequest>().ok().and_then(|r| r.scan) {
                check_scan(&scan);
            }
        }
        "Mutate" => {
            if let Ok(r) = call.param::<pb::MutateRequest>() {
                let mut block = call.cells.clone();
                check_mutation(&call, &r.mutation, &mut block);
                if let Some(condition) = &r.condition {
                    check_condition(condition);
                }
            }
        }
        "Multi" => {
            if let Ok(r) = call.param::<pb::MultiRequest>() {
                check_multi(&call, &r);
            }
        }
        _ => {}
    }
}

fn check_get(get: &pb::Get) {
    let _ = reads::columns(&get.column);
    if let Ok(range) = reads::time_range(get.time_range.as_ref()) {
        assert!(range.min <= range.max, "time range {range:?}");
    }
    if let Some(filter) = &get.filter {
        check_filter(filter);
    }
}

fn check_condition(condition: &pb::Condition) {
    if let Ok(check) = mutate::check(condition) {
        assert_eq!(check.row, condition.row);
        // An empty comparand means "no value": it is never compared as a value.
        assert!(check.value.as_ref().is_none_or(|v| !v.is_empty()));
    }
}

/// Every region action's mutations, their cells taken from one block in order, as
/// `Multi` does.
fn check_multi(call: &Call, request: &pb::MultiRequest) {
    let mut block = call.cells.clone();
    for action in &request.region_action {
        if let Some(condition) = &action.condition {
            check_condition(condition);
        }
        for a in &action.action {
            if let Some(get) = &a.get {
                check_get(get);
            } else if let Some(m) = &a.mutation {
                if !check_mutation(call, m, &mut block) {
                    break;
                }
            }
        }
    }
}

/// Decodes one mutation; on success its cells are the inline ones and then exactly the
/// announced number from the block, all of the mutation's row, and without tags the block
/// shrank by exactly their encoding. Returns whether it decoded.
fn check_mutation(call: &Call, m: &pb::MutationProto, block: &mut Bytes) -> bool {
    let before = block.len();
    let Ok(mutation) = mutations::decode_cells(call, m, block) else {
        return false;
    };
    let inline: usize = m.column_value.iter().map(|c| c.qualifier_value.len()).sum();
    let carried = usize::try_from(m.associated_cell_count()).unwrap_or(0);
    assert_eq!(mutation.cells.len(), inline + carried, "cells of {m:?}");
    for cell in &mutation.cells {
        assert_eq!(cell.row, mutation.row, "a cell of another row");
    }
    let used = before - block.len();
    let carried_len: usize = mutation.cells[inline..]
        .iter()
        .map(cellblock::encoded_len)
        .sum();
    if call.codec == Some(Codec::KeyValue) {
        assert_eq!(used, carried_len, "block bytes taken");
    } else {
        assert!(used >= carried_len, "block bytes taken");
    }
    true
}

/// The regions each scan is tried in.
const REGIONS: [(&[u8], &[u8]); 4] = [(b"", b""), (b"", b"g"), (b"g", b"p"), (b"p", b"")];

fn check_scan(scan: &pb::Scan) -> usize {
    let mut answered = 0;
    for (start, end) in REGIONS {
        let region = RegionInfo {
            id: 1,
            start_key: Bytes::from_static(start),
            end_key: Bytes::from_static(end),
            name: String::new(),
            served_by: ServedBy::ThisServer,
        };
        let Ok((engine, cut)) = scan_call::bounds(scan, &region) else {
            return answered;
        };
        assert!(engine.max_versions >= 1, "{engine:?}");
        assert!(engine.time_range.min <= engine.time_range.max, "{engine:?}");
        answered += check_rows(scan, &region, &engine, &cut);
    }
    if let Some(filter) = &scan.filter {
        check_filter(filter);
    }
    answered
}

/// Runs the scan over a table holding every row near its bounds and the region's, as the
/// service scanner and the fetch loop would, and compares with HBase's answer.
fn check_rows(scan: &pb::Scan, region: &RegionInfo, engine: &Scan, cut: &Cut) -> usize {
    let mut rows = candidate_rows(scan, region);
    if scan.reversed() {
        rows.reverse();
    }
    let mut answered = Vec::new();
    let mut started = false;
    for row in rows.iter().filter(|r| engine_reads(engine, r)) {
        match cut.admit(&mut started, row) {
            Admit::Skip => {}
            Admit::Take => answered.push(row.clone()),
            Admit::EndRegion | Admit::EndScan => break,
        }
    }
    let expected: Vec<&Vec<u8>> = rows.iter().filter(|r| wanted(scan, region, r)).collect();
    let got: Vec<&Vec<u8>> = answered.iter().collect();
    assert_eq!(
        got, expected,
        "rows answered in region [{:?}, {:?}) for {scan:?}",
        region.start_key, region.end_key
    );
    answered.len()
}

/// Rows around every bound: each bound, just above it, just below it.
fn candidate_rows(scan: &pb::Scan, region: &RegionInfo) -> Vec<Vec<u8>> {
    let mut bounds: Vec<&[u8]> = vec![b"", b"a", b"g", b"m", b"p", b"z"];
    bounds.extend(scan.start_row.as_deref());
    bounds.extend(scan.stop_row.as_deref());
    bounds.push(&region.start_key);
    bounds.push(&region.end_key);
    let mut rows = Vec::new();
    for b in bounds {
        rows.push(b.to_vec());
        let mut above = b.to_vec();
        above.push(0);
        rows.push(above);
        if let Some((last, init)) = b.split_last() {
            rows.push(init.to_vec());
            if *last > 0 {
                let mut below = init.to_vec();
                below.push(last - 1);
                below.push(0xff);
                rows.push(below);
            }
        }
    }
    rows.sort();
    rows.dedup();
    rows
}

/// Whether the service scanner reads `row`: forward `[start, stop)`, reversed from `start`
/// (inclusive) down to `stop` (exclusive); an empty bound is open.
fn engine_reads(engine: &Scan, row: &[u8]) -> bool {
    let (start, stop) = (&engine.start_row[..], &engine.stop_row[..]);
    if engine.reversed {
        (start.is_empty() || row <= start) && (stop.is_empty() || row > stop)
    } else {
        row >= start && (stop.is_empty() || row < stop)
    }
}

/// Whether HBase answers `row` for `scan` in `region`.
fn wanted(scan: &pb::Scan, region: &RegionInfo, row: &[u8]) -> bool {
    let start = scan.start_row.as_deref().unwrap_or_default();
    let stop = scan.stop_row.as_deref().unwrap_or_default();
    let end = &region.end_key[..];
    let in_region = row >= &region.start_key[..] && (end.is_empty() || row < end);
    let (from_start, to_stop) = if scan.reversed() {
        (
            start.is_empty() || row < start || (row == start && scan.include_start_row()),
            stop.is_empty() || row > stop || (row == stop && scan.include_stop_row()),
        )
    } else {
        (
            start.is_empty() || row > start || (row == start && scan.include_start_row()),
            stop.is_empty() || row < stop || (row == stop && scan.include_stop_row()),
        )
    };
    in_region && from_start && to_stop
}

/// Decodes a filter and runs it over two small rows: a kept row holds only cells it had.
fn check_filter(filter: &pb::Filter) {
    if let Ok(Some(mut filter)) = filters::decode(filter) {
        strata_server::fuzz_support::check_on_sample_rows(&mut filter);
    }
}
