//! ReadRows responses: rows cut into CellChunks and packed into messages the clients can
//! receive.
//!
//! Google's clients open their channels with gRPC's default 4 MiB receive limit, so every
//! message stays well under it: a message is closed once it holds [`Limits::target`] bytes,
//! each message starts at a cell boundary, and only a cell too big to travel whole (above
//! [`Limits::split_above`]) is split into value pieces of [`Limits::piece`] bytes, the first
//! carrying `value_size`, as the protocol allows.
//!
//! Chunk headers: the first chunk of a row, and the first chunk of every message, carry the
//! row key (the Python client checks key order per message); family and qualifier are sent
//! when they change; timestamp and labels on the first chunk of every cell; `commit_row` on
//! the row's last chunk.

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::read_rows_response::{cell_chunk::RowStatus, CellChunk};
use prost::Message;

use crate::row_filter::FilterCell;

/// gRPC's default receive limit, which Google's clients keep.
pub const CLIENT_MESSAGE_LIMIT: usize = 4 * 1024 * 1024;

/// How messages are packed.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A message is sent once it holds this many bytes.
    pub target: usize,
    /// Cells bigger than this are split across messages.
    pub split_above: usize,
    /// Value bytes per piece of a split cell.
    pub piece: usize,
}

impl Default for Limits {
    fn default() -> Self {
        // Worst case: a message just under `target` is closed, then one cell of
        // `split_above` plus its key and qualifier: 3 MiB and a little, under 4 MiB.
        Limits {
            target: 1024 * 1024,
            split_above: CLIENT_MESSAGE_LIMIT - 1024 * 1024,
            piece: 1024 * 1024,
        }
    }
}

/// Protobuf framing of one chunk inside the response (tag and length prefix).
const CHUNK_FRAMING: usize = 8;

/// Packs rows into ReadRowsResponse messages.
pub struct Chunker {
    limits: Limits,
    current: pb::ReadRowsResponse,
    current_bytes: usize,
    ready: Vec<pb::ReadRowsResponse>,
}

/// Where a cell sits in its row.
struct CellPlace<'a> {
    key: &'a Bytes,
    first_in_row: bool,
    last_in_row: bool,
    family_changed: bool,
    qualifier_changed: bool,
}

impl Chunker {
    pub fn new(limits: Limits) -> Self {
        Chunker {
            limits,
            current: pb::ReadRowsResponse::default(),
            current_bytes: 0,
            ready: Vec::new(),
        }
    }

    /// Adds one row (at least one cell, in Bigtable's order).
    pub fn push_row(&mut self, key: &Bytes, cells: Vec<FilterCell>) {
        let count = cells.len();
        let mut previous: Option<(String, Bytes)> = None;
        for (i, cell) in cells.into_iter().enumerate() {
            let family_changed = previous.as_ref().is_none_or(|(f, _)| *f != cell.family);
            let qualifier_changed =
                family_changed || previous.as_ref().is_some_and(|(_, q)| *q != cell.qualifier);
            let place = CellPlace {
                key,
                first_in_row: i == 0,
                last_in_row: i + 1 == count,
                family_changed,
                qualifier_changed,
            };
            previous = Some((cell.family.clone(), cell.qualifier.clone()));
            self.push_cell(&place, cell);
        }
        if self.current_bytes >= self.limits.target {
            self.flush();
        }
    }

    /// Closes the message being filled, if it holds anything.
    pub fn flush(&mut self) {
        if !self.current.chunks.is_empty() {
            self.ready.push(std::mem::take(&mut self.current));
            self.current_bytes = 0;
        }
    }

    /// The messages completed so far.
    pub fn take_ready(&mut self) -> Vec<pb::ReadRowsResponse> {
        std::mem::take(&mut self.ready)
    }

    fn push_cell(&mut self, place: &CellPlace<'_>, cell: FilterCell) {
        let value = cell.value.clone();
        let mut head = CellChunk {
            row_key: if place.first_in_row {
                place.key.clone()
            } else {
                Bytes::new()
            },
            family_name: place.family_changed.then(|| cell.family.clone()),
            qualifier: place.qualifier_changed.then(|| cell.qualifier.to_vec()),
            timestamp_micros: cell.timestamp_micros,
            labels: cell.labels,
            value: Bytes::new(),
            value_size: 0,
            row_status: None,
        };
        let whole = head.encoded_len() + value.len() + CHUNK_FRAMING;
        if whole <= self.limits.split_above {
            if self.current_bytes + whole > self.limits.target {
                self.flush();
            }
            head.value = value;
            self.append(head, place.key, place.last_in_row);
            return;
        }
        self.flush();
        self.push_pieces(head, value, place);
    }

    /// A big cell as pieces: the first has the cell's headers and the total `value_size`,
    /// the rest only values; each but the last closes its message.
    fn push_pieces(&mut self, head: CellChunk, value: Bytes, place: &CellPlace<'_>) {
        let total = value.len();
        let mut offset = 0;
        let mut first = Some(head);
        while offset < total {
            let end = (offset + self.limits.piece).min(total);
            let last = end == total;
            let mut chunk = first.take().unwrap_or_default();
            chunk.value = value.slice(offset..end);
            // value_size is an int32 in the protocol; larger cells cannot be described.
            chunk.value_size = if last {
                0
            } else {
                i32::try_from(total).unwrap_or(i32::MAX)
            };
            self.append(chunk, place.key, last && place.last_in_row);
            if !last {
                self.flush();
            }
            offset = end;
        }
    }

    fn append(&mut self, mut chunk: CellChunk, key: &Bytes, commits_row: bool) {
        if self.current.chunks.is_empty() {
            chunk.row_key = key.clone();
        }
        if commits_row {
            chunk.row_status = Some(RowStatus::CommitRow(true));
        }
        self.current_bytes += chunk.encoded_len() + CHUNK_FRAMING;
        self.current.chunks.push(chunk);
    }
}

#[cfg(test)]
pub(super) mod tests;
