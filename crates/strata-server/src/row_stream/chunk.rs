//! The owner's side of a forwarded scan chunk: the chunk's range narrowed to the region it
//! names and to the rows after the last one returned, read only from regions open here.

use bytes::Bytes;
use strata_engine::{RowResult, Scan};

use std::sync::Arc;

use super::RowStream;
use crate::directory::TableDirectory;
use crate::error::Result;
use crate::names::TableName;
use crate::remote::ScanChunk;

/// Up to `chunk.max_rows` rows of the chunk's range, from the regions of `directory`
/// served here.
pub(crate) fn scan_chunk_here(
    directory: &Arc<TableDirectory>,
    table: &TableName,
    chunk: &ScanChunk,
) -> Result<Vec<RowResult>> {
    let (scan, keep) = narrow(chunk);
    let (start, end) = (&chunk.region_start, &chunk.region_end);
    let mut stream = RowStream::open_here(directory, table, scan, start, end)?;
    let mut rows = Vec::with_capacity(chunk.max_rows.min(1024));
    while rows.len() < chunk.max_rows {
        let Some(row) = stream.next_row()? else {
            break;
        };
        match keep.check(&row.row) {
            Keep::Yes => rows.push(row),
            Keep::Skip => {}
            Keep::Done => break,
        }
    }
    Ok(rows)
}

/// Whether a row read belongs to the chunk.
enum Keep {
    Yes,
    Skip,
    /// This row and every later one (in scan order) are outside.
    Done,
}

/// What a reversed scan must drop itself: its bounds cannot say "below `end`" (its start is
/// inclusive) or "from `start` on" (its stop is exclusive).
struct ReversedBounds {
    /// Rows at or above this are skipped (the region's end, or the last row returned).
    below: Option<Bytes>,
    /// Rows below this end the chunk (the region's start).
    from: Bytes,
}

impl ReversedBounds {
    fn check(&self, row: &[u8]) -> Keep {
        if self.below.as_ref().is_some_and(|b| row >= b.as_ref()) {
            Keep::Skip
        } else if row < self.from.as_ref() {
            Keep::Done
        } else {
            Keep::Yes
        }
    }
}

/// A forward chunk's bounds are exact; a reversed one filters what it reads.
enum ChunkBounds {
    Exact,
    Reversed(ReversedBounds),
}

impl ChunkBounds {
    fn check(&self, row: &[u8]) -> Keep {
        match self {
            ChunkBounds::Exact => Keep::Yes,
            ChunkBounds::Reversed(bounds) => bounds.check(row),
        }
    }
}

/// The engine scan for a chunk, and what to drop of what it reads.
fn narrow(chunk: &ScanChunk) -> (Scan, ChunkBounds) {
    let mut scan = chunk.scan.clone();
    scan.limit = None;
    if !scan.reversed {
        let mut start = scan.start_row.clone().max(chunk.region_start.clone());
        if let Some(after) = &chunk.after {
            // The smallest row after `after`.
            start = start.max(Bytes::from([after.as_ref(), &[0u8]].concat()));
        }
        scan.start_row = start;
        scan.stop_row = lowest_bound(&scan.stop_row, &chunk.region_end);
        return (scan, ChunkBounds::Exact);
    }
    let mut below = (!chunk.region_end.is_empty()).then(|| chunk.region_end.clone());
    if let Some(after) = &chunk.after {
        below = Some(match below {
            Some(end) => end.min(after.clone()),
            None => after.clone(),
        });
    }
    if let Some(b) = &below {
        scan.start_row = lowest_bound(&scan.start_row, b);
    }
    let bounds = ReversedBounds {
        below,
        from: chunk.region_start.clone(),
    };
    (scan, ChunkBounds::Reversed(bounds))
}

/// The lower of two upper bounds where empty means unbounded.
fn lowest_bound(a: &Bytes, b: &Bytes) -> Bytes {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.clone(),
        (_, true) => a.clone(),
        _ => a.clone().min(b.clone()),
    }
}
