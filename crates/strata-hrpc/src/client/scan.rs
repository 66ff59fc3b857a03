//! ClientService.Scan: open a scanner confined to one region, fetch from it, close it.
//!
//! The service's scanner reads the table in the scan's direction; this layer stops at
//! the region's edge and says so (`more_results_in_region = false`), so the client moves
//! to the next region as it does with HBase, and at the stop row (`more_results = false`).

use bytes::{BufMut, Bytes, BytesMut};
use strata_engine::{RowResult, Scan};
use strata_server::table::RegionInfo;
use strata_server::{ScannerLookup, ScannerOptions, ScannerOwner, ScannerProtocol};

use super::cell_blocks::ResponseCells;
use super::regions::{self, Target};
use super::scanners::{Admit, Cut, NativeScanner};
use super::{filters, reads};
use crate::call::{Call, CallResult};
use crate::context::Context;
use crate::exception::{class, RemoteException};
use crate::{meta, pb, results};

/// Rows fetched from the service scanner at a time.
const FETCH: usize = 256;
/// Most rows one call returns, whatever the client's caching asks.
const MAX_ROWS_PER_CALL: u64 = 10_000;
/// The client's default `hbase.client.scanner.max.result.size`, used when it sends none.
const DEFAULT_MAX_RESULT_SIZE: u64 = 2 * 1024 * 1024;

/// Serves Scan.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    let request: pb::ScanRequest = call.param()?;
    let mut response = answer(ctx, &request)?;
    let mut cells = ResponseCells::for_call(call);
    cells.take_scan(&mut response);
    Ok(cells.reply(&response))
}

fn answer(ctx: &Context, request: &pb::ScanRequest) -> Result<pb::ScanResponse, RemoteException> {
    if let Some(scan) = &request.scan {
        return match regions::resolve(ctx, request.region.as_ref())? {
            Target::Meta => meta::scan(ctx, scan, request),
            Target::Region { table, region } => open(ctx, request, scan, table, region),
        };
    }
    let id = request
        .scanner_id
        .ok_or_else(|| RemoteException::invalid("a scan call needs a scan or a scanner id"))?;
    next(ctx, request, id)
}

fn open(
    ctx: &Context,
    request: &pb::ScanRequest,
    scan: &pb::Scan,
    table: strata_server::names::TableName,
    region: RegionInfo,
) -> Result<pb::ScanResponse, RemoteException> {
    let (engine_scan, cut) = bounds(scan, &region)?;
    let filter = scan
        .filter
        .as_ref()
        .map(filters::decode)
        .transpose()?
        .flatten();
    let batch = scan.batch_size.filter(|b| *b > 0).map(|b| b as usize);
    let options = ScannerOptions {
        scan: engine_scan,
        filter,
        batch,
        sorted_columns: false,
        owner: ScannerOwner {
            protocol: ScannerProtocol::HbaseRpc,
            client: None,
        },
    };
    let inner = ctx.service.scanners().open_scanner_with(&table, options)?;
    let rows_left = request.limit_of_rows.filter(|n| *n > 0).map(u64::from);
    let scanner = NativeScanner {
        table,
        inner,
        cut,
        next_call_seq: 0,
        rows_left,
        started: false,
        max_result_bytes: scan
            .max_result_size
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_MAX_RESULT_SIZE),
        allow_partial: scan.allow_partial_results(),
    };
    let id = ctx.scanners.insert(scanner, |inner| {
        ctx.service.scanners().scanner_is_open(inner)
    });
    // The first call may already ask for rows (and even to close).
    next_unchecked(ctx, request, id)
}

/// The service scan and the cut for `scan` in `region`.
pub fn bounds(scan: &pb::Scan, region: &RegionInfo) -> Result<(Scan, Cut), RemoteException> {
    let reversed = scan.reversed();
    let start = scan.start_row.clone().unwrap_or_default();
    let stop = scan.stop_row.clone().unwrap_or_default();
    let include_stop = scan.include_stop_row();
    let mut engine = Scan::new()
        .reversed(reversed)
        .versions(reads::max_versions(scan.max_versions())?)
        .time_range(reads::time_range(scan.time_range.as_ref())?)
        .cache_blocks(scan.cache_blocks());
    engine.columns = reads::columns(&scan.column);
    // The tightest bound the service can apply itself; the cut does the exact one.
    let engine_stop = match (reversed, include_stop) {
        (false, true) if !stop.is_empty() => with_zero(&stop),
        (true, true) => Bytes::new(),
        _ => stop.clone(),
    };
    // Never before the region: forward from its start at the lowest; reversed from its end
    // at the highest (that row is the next region's, and the cut leaves it out).
    let engine_start = if !reversed && start < region.start_key {
        region.start_key.clone()
    } else if reversed
        && !region.end_key.is_empty()
        && (start.is_empty() || start >= region.end_key)
    {
        region.end_key.clone()
    } else {
        start.clone()
    };
    engine = engine.range(engine_start, engine_stop);
    let cut = Cut {
        reversed,
        region_start: region.start_key.clone(),
        region_end: region.end_key.clone(),
        stop,
        include_stop,
        skip: (!scan.include_start_row() && !start.is_empty()).then_some(start),
    };
    Ok((engine, cut))
}

fn with_zero(row: &[u8]) -> Bytes {
    let mut next = BytesMut::with_capacity(row.len() + 1);
    next.put_slice(row);
    next.put_u8(0);
    next.freeze()
}

fn next(
    ctx: &Context,
    request: &pb::ScanRequest,
    id: u64,
) -> Result<pb::ScanResponse, RemoteException> {
    let scanner = ctx.scanners.get(id).ok_or_else(|| unknown(id))?;
    {
        let mut s = scanner.lock();
        if let Some(seq) = request.next_call_seq {
            if seq != s.next_call_seq {
                let expected = s.next_call_seq;
                drop(s);
                close(ctx, id);
                return Err(RemoteException::fatal(
                    class::OUT_OF_ORDER_SCANNER_NEXT,
                    format!("expected nextCallSeq {expected}, got {seq} (scanner {id})"),
                ));
            }
            s.next_call_seq += 1;
        }
    }
    if request.renew() {
        return Ok(response(ctx, id, Vec::new(), true, true));
    }
    next_unchecked(ctx, request, id)
}

fn unknown(id: u64) -> RemoteException {
    RemoteException::fatal(
        class::UNKNOWN_SCANNER,
        format!("scanner {id} does not exist or its lease expired"),
    )
}

fn close(ctx: &Context, id: u64) {
    if let Some(scanner) = ctx.scanners.remove(id) {
        let inner = scanner.lock().inner;
        // An expired inner scanner is already gone: nothing left to close.
        let _ = ctx
            .service
            .scanners()
            .close_scanner_as(&ScannerLookup::HBASE_RPC, inner);
    }
}

/// Fetches for scanner `id` without checking the call sequence.
fn next_unchecked(
    ctx: &Context,
    request: &pb::ScanRequest,
    id: u64,
) -> Result<pb::ScanResponse, RemoteException> {
    if request.close_scanner() && request.number_of_rows() == 0 {
        close(ctx, id);
        return Ok(response(ctx, id, Vec::new(), false, false));
    }
    let scanner = ctx.scanners.get(id).ok_or_else(|| unknown(id))?;
    let batch = {
        let mut s = scanner.lock();
        fetch(ctx, &mut s, request)
    };
    let batch = match batch {
        Ok(batch) => batch,
        Err(e) => {
            close(ctx, id);
            return Err(e);
        }
    };
    let open = batch.in_region && !request.close_scanner();
    if !open {
        close(ctx, id);
    }
    let heartbeat = batch.heartbeat;
    let mut answer = response(ctx, id, batch.rows, batch.in_region, batch.more);
    if heartbeat {
        answer.heartbeat_message = Some(true);
    }
    Ok(answer)
}

struct Batch {
    rows: Vec<pb::Result>,
    /// More rows may follow in this region.
    in_region: bool,
    /// More rows may follow in the scan (this or a later region).
    more: bool,
    /// The answer came early for time: HBase's heartbeat message.
    heartbeat: bool,
}

fn fetch(
    ctx: &Context,
    s: &mut NativeScanner,
    request: &pb::ScanRequest,
) -> Result<Batch, RemoteException> {
    let wanted = u64::from(request.number_of_rows()).clamp(1, MAX_ROWS_PER_CALL);
    let wanted = s.rows_left.map_or(wanted, |left| wanted.min(left));
    let max_bytes = s.max_result_bytes;
    let mut rows = Vec::new();
    let mut bytes = 0u64;
    // A client that handles heartbeats gets an answer within about the heartbeat time
    // even when the filter finds nothing (each chunk gets that much filtering), so a long
    // filtered scan does not run into its timeout.
    let heartbeats = request.client_handles_heartbeats();
    // A chunk never holds more than this call still wants, and is used whole: rows taken
    // from the service scanner cannot be put back.
    while (rows.len() as u64) < wanted && bytes < max_bytes {
        let max = FETCH.min((wanted - rows.len() as u64) as usize);
        let fetched = if heartbeats {
            ctx.service.scanners().scanner_results_within(
                &ScannerLookup::HBASE_RPC,
                s.inner,
                max,
                ctx.heartbeat_after,
            )?
        } else {
            ctx.service
                .scanners()
                .scanner_results(&ScannerLookup::HBASE_RPC, s.inner, max)?
        };
        let (chunk, out_of_time) = (fetched.results, fetched.out_of_time);
        if chunk.is_empty() && !out_of_time {
            return Ok(Batch {
                rows,
                in_region: false,
                more: false,
                heartbeat: false,
            });
        }
        for row in chunk {
            match s.cut.admit(&mut s.started, &row.row) {
                Admit::Skip => continue,
                Admit::Take => {}
                Admit::EndRegion => {
                    return Ok(Batch {
                        rows,
                        in_region: false,
                        more: true,
                        heartbeat: false,
                    })
                }
                Admit::EndScan => {
                    return Ok(Batch {
                        rows,
                        in_region: false,
                        more: false,
                        heartbeat: false,
                    })
                }
            }
            bytes += push_row(&mut rows, row, s.allow_partial, max_bytes);
            if let Some(left) = s.rows_left.as_mut() {
                *left -= 1;
                if *left == 0 {
                    return Ok(Batch {
                        rows,
                        in_region: false,
                        more: false,
                        heartbeat: false,
                    });
                }
            }
        }
        if out_of_time {
            return Ok(Batch {
                rows,
                in_region: true,
                more: true,
                heartbeat: true,
            });
        }
    }
    Ok(Batch {
        rows,
        in_region: true,
        more: true,
        heartbeat: false,
    })
}

/// Bytes a cell counts for against the result size.
fn cell_size(c: &strata_engine::Cell) -> u64 {
    (c.row.len() + c.family.len() + c.qualifier.len() + c.value.len()) as u64 + 24
}

/// Adds `row` to the answer, in parts no larger than `max_bytes` when the client allows
/// partial results; returns its size.
fn push_row(out: &mut Vec<pb::Result>, row: RowResult, allow_partial: bool, max_bytes: u64) -> u64 {
    let size: u64 = row.cells.iter().map(cell_size).sum();
    if !allow_partial || size <= max_bytes {
        out.push(results::result(Some(&row)));
        return size;
    }
    let mut part: Vec<strata_engine::Cell> = Vec::new();
    let mut part_bytes = 0;
    for cell in row.cells {
        let n = cell_size(&cell);
        if !part.is_empty() && part_bytes + n > max_bytes {
            let mut result = results::cells_result(&part);
            result.partial = Some(true);
            out.push(result);
            part.clear();
            part_bytes = 0;
        }
        part_bytes += n;
        part.push(cell);
    }
    out.push(results::cells_result(&part));
    size
}

fn response(
    ctx: &Context,
    id: u64,
    rows: Vec<pb::Result>,
    in_region: bool,
    more: bool,
) -> pb::ScanResponse {
    pb::ScanResponse {
        scanner_id: Some(id),
        more_results: Some(more),
        more_results_in_region: Some(in_region),
        ttl: Some(ctx.scanners.lease_ms()),
        results: rows,
        ..Default::default()
    }
}
