//! ReadRows: rows streamed as they are scanned. A blocking task walks the row set (point
//! keys by Get, ranges by region scans), reads every stored version, runs the request's
//! filter on each row, and hands packed messages to a bounded channel; it stops when the
//! client goes away. Memory stays bounded by one row plus a few messages.

use crate::caller::with_caller;
use std::ops::ControlFlow;
use std::sync::Arc;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use strata_engine::{Get, RowResult};
use strata_server::{Service, TableName};
use tonic::Status;

use super::chunker::{Chunker, Limits};
use super::row_set::{self, KeyRange};
use super::{cells, ResponseStream};
use crate::row_filter::{RowFilter, Sampler};

/// Messages waiting for the client (each under 4 MiB).
const CHANNEL_MESSAGES: usize = 4;

/// After this many rows scanned and filtered out in a row, a forward read tells the client
/// how far it got (`last_scanned_row_key`), so a retry resumes there.
const SCANNED_PROGRESS_ROWS: usize = 1000;

/// A checked ReadRows request.
#[derive(Debug)]
pub struct ReadPlan {
    pub table: TableName,
    /// Sorted, disjoint ranges (ascending).
    pub ranges: Vec<KeyRange>,
    pub filter: std::sync::Arc<RowFilter>,
    pub limit: Option<u64>,
    pub reversed: bool,
}

impl ReadPlan {
    pub fn from_request(request: &pb::ReadRowsRequest) -> Result<Self, Status> {
        let table = crate::names::table_of("table_name", &request.table_name)?;
        if request.rows_limit < 0 {
            return Err(Status::invalid_argument(format!(
                "rows_limit: {} is negative",
                request.rows_limit
            )));
        }
        Ok(ReadPlan {
            table,
            ranges: row_set::normalize(request.rows.as_ref())?,
            filter: RowFilter::compile_cached(request.filter.as_ref(), "filter")?,
            limit: (request.rows_limit > 0).then_some(request.rows_limit as u64),
            reversed: request.reversed,
        })
    }
}

impl ReadPlan {
    /// A read of one row key: one `Get`, answered from the memstore or the block cache in
    /// microseconds (or one block read on a miss). Its messages hold no more than the row
    /// itself, as the streamed path's do for a single row, so collecting them is bounded.
    fn is_point_read(&self) -> bool {
        matches!(self.ranges.as_slice(), [range] if range.single_key().is_some())
    }
}

pub async fn read_rows(
    service: Arc<Service>,
    request: pb::ReadRowsRequest,
    mut sampler: impl Sampler + Send + 'static,
) -> Result<ResponseStream<pb::ReadRowsResponse>, Status> {
    let plan = ReadPlan::from_request(&request)?;
    let caller = crate::caller::current();
    if plan.is_point_read() {
        let inline = with_caller(&caller, || {
            strata_server::inline::here_only(|| read_inline(&service, &plan, &mut sampler))
        });
        if let Some(answer) = inline {
            return answer;
        }
        // The row's region is on a peer (or the read waits for a region change): it is
        // streamed from the blocking pool like any other read.
    }
    // A missing table is the call's status rather than an error inside the stream. Known
    // here, it is looked up on the task; one this server has not followed yet is read
    // from the catalog on the blocking pool.
    let table = plan.table.clone();
    let described = with_caller(&caller, || {
        strata_server::inline::here_only(|| service.admin().describe_table(&table))
    });
    match described {
        Some(described) => drop(described.map_err(crate::error::status)?),
        None => {
            let service = Arc::clone(&service);
            drop(crate::blocking::blocking(move || service.admin().describe_table(&table)).await?)
        }
    }
    let (tx, rx) = tokio::sync::mpsc::channel(CHANNEL_MESSAGES);
    tokio::task::spawn_blocking(move || {
        let sink = |message| tx.blocking_send(Ok(message)).is_ok();
        let outcome = with_caller(&caller, || {
            read(&service, &plan, &mut sampler, Limits::default(), sink)
        });
        if let Err(status) = outcome {
            let _ = tx.blocking_send(Err(status));
        }
    });
    Ok(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx)))
}

/// Runs a point read on the calling task and answers with the collected messages. Called
/// inside `strata_server::inline::here_only`: a row on a peer is refused, not forwarded.
///
/// Why: handing a one-row read to the blocking pool and back through a channel costs two
/// thread wake-ups, which profiling showed to be most of the server's time per point read.
/// The answer is one row, and every error (a missing table included) is
/// known before the stream starts, so it becomes the call's status.
fn read_inline(
    service: &Service,
    plan: &ReadPlan,
    sampler: &mut dyn Sampler,
) -> Result<ResponseStream<pb::ReadRowsResponse>, Status> {
    let mut messages = Vec::new();
    let sink = |message| {
        messages.push(Ok(message));
        true
    };
    read(service, plan, sampler, Limits::default(), sink)?;
    Ok(Box::pin(tokio_stream::iter(messages)))
}

/// Runs `plan`, handing each message to `sink` (which answers false once the client is
/// gone).
pub fn read(
    service: &Service,
    plan: &ReadPlan,
    sampler: &mut dyn Sampler,
    limits: Limits,
    sink: impl FnMut(pb::ReadRowsResponse) -> bool,
) -> Result<(), Status> {
    let mut reader = Reader {
        plan,
        sampler,
        sink,
        chunker: Chunker::new(limits),
        emitted: 0,
        last_emitted: None,
        last_scanned: None,
        skipped_in_a_row: 0,
        failure: None,
    };
    if reader.walk(service).is_continue() {
        reader.finish();
    }
    reader.failure.map_or(Ok(()), Err)
}

struct Reader<'a, S> {
    plan: &'a ReadPlan,
    sampler: &'a mut dyn Sampler,
    sink: S,
    chunker: Chunker,
    emitted: u64,
    last_emitted: Option<Bytes>,
    last_scanned: Option<Bytes>,
    skipped_in_a_row: usize,
    failure: Option<Status>,
}

/// Stop: the limit is reached, the client is gone, or reading failed (with its status).
type Flow = ControlFlow<Option<Status>>;

impl<S: FnMut(pb::ReadRowsResponse) -> bool> Reader<'_, S> {
    fn walk(&mut self, service: &Service) -> ControlFlow<()> {
        let ranges: Vec<&KeyRange> = if self.plan.reversed {
            self.plan.ranges.iter().rev().collect()
        } else {
            self.plan.ranges.iter().collect()
        };
        for range in ranges {
            match self.walk_range(service, range) {
                ControlFlow::Continue(()) => {}
                ControlFlow::Break(None) => return ControlFlow::Break(()),
                ControlFlow::Break(Some(status)) => {
                    self.fail(status);
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn walk_range(&mut self, service: &Service, range: &KeyRange) -> Flow {
        let status = |e| ControlFlow::Break(Some(crate::error::status(e)));
        if let Some(key) = range.single_key() {
            let get = Get::new(key.clone()).versions(u32::MAX);
            return match service.rows().get(&self.plan.table, &get) {
                Ok(Some(row)) => self.visit(row),
                Ok(None) => ControlFlow::Continue(()),
                Err(e) => status(e),
            };
        }
        let mut rows = match service
            .scanners()
            .scan_rows(&self.plan.table, range.scan(self.plan.reversed))
        {
            Ok(rows) => rows,
            Err(e) => return status(e),
        };
        loop {
            match rows.next_row() {
                Ok(None) => return ControlFlow::Continue(()),
                Err(e) => return status(e),
                Ok(Some(row)) if range.contains(&row.row) => self.visit(row)?,
                // A reversed scan covers a little more than the range (see KeyRange::scan).
                Ok(Some(row)) if range.is_above(&row.row) => return ControlFlow::Continue(()),
                Ok(Some(_)) => {}
            }
        }
    }

    fn visit(&mut self, row: RowResult) -> Flow {
        let key = row.row.clone();
        // A filter over its evaluation budget fails the read rather than hiding rows.
        let cells =
            match self
                .plan
                .filter
                .try_apply(&key, cells::filter_cells(row), &mut *self.sampler)
            {
                Ok(cells) => cells,
                Err(status) => return ControlFlow::Break(Some(status)),
            };
        self.last_scanned = Some(key.clone());
        if cells.is_empty() {
            self.skipped_in_a_row += 1;
            if self.skipped_in_a_row >= SCANNED_PROGRESS_ROWS {
                self.skipped_in_a_row = 0;
                if !self.send_ready() || !self.send_progress() {
                    return ControlFlow::Break(None);
                }
            }
            return ControlFlow::Continue(());
        }
        self.skipped_in_a_row = 0;
        self.chunker.push_row(&key, cells);
        self.last_emitted = Some(key);
        self.emitted += 1;
        if !self.send_ready() || self.plan.limit.is_some_and(|l| self.emitted >= l) {
            self.finish();
            return ControlFlow::Break(None);
        }
        ControlFlow::Continue(())
    }

    /// Sends the completed messages; false if the client is gone.
    fn send_ready(&mut self) -> bool {
        self.chunker
            .take_ready()
            .into_iter()
            .all(|message| (self.sink)(message))
    }

    /// Tells a forward reader the last row scanned, when it is past the last row sent.
    /// (Clients check it against the direction of a forward read; reversed reads skip it.)
    fn send_progress(&mut self) -> bool {
        if self.plan.reversed {
            return true;
        }
        let Some(scanned) = self.last_scanned.clone() else {
            return true;
        };
        if self.last_emitted.as_ref().is_some_and(|e| *e >= scanned) {
            return true;
        }
        self.chunker.flush();
        if !self.send_ready() {
            return false;
        }
        self.last_emitted = Some(scanned.clone());
        (self.sink)(pb::ReadRowsResponse {
            last_scanned_row_key: scanned,
            ..Default::default()
        })
    }

    fn finish(&mut self) {
        self.chunker.flush();
        if self.send_ready() && self.plan.limit.is_none_or(|l| self.emitted < l) {
            self.send_progress();
        }
    }

    /// Ends the stream with an error after the rows already complete.
    fn fail(&mut self, status: Status) {
        // Rows already packed are whole; sending them lets a retry resume after them.
        self.chunker.flush();
        self.send_ready();
        self.failure = Some(status);
    }
}

#[cfg(test)]
mod tests;
