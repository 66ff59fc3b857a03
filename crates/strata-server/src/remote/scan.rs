//! Scanning a table whose regions may be served elsewhere: a scan plan lists each region
//! as a [`RegionSource`], and reading one gives [`RegionRows`], from the engine for a
//! region here or in chunks from its owner for one elsewhere.

use std::collections::VecDeque;
use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Region, RegionScanner, RowResult, Scan};

use super::{PeerTable, RegionPeer, ScanChunk};
use crate::error::Result;
use crate::table::{OpenRegion, RegionLocation, TableState};

/// Rows fetched from a peer per request: enough to amortise the round trip, few enough
/// that a scanner's first rows come back quickly.
const CHUNK_ROWS: usize = 256;

/// One region of a scan plan.
#[derive(Clone)]
pub(crate) enum RegionSource {
    Local(Arc<Region>),
    Peer {
        peer: Arc<dyn RegionPeer>,
        table: PeerTable,
        start: Bytes,
        end: Bytes,
    },
}

impl RegionSource {
    /// The source for region `open` of the table `state`.
    pub(crate) fn of(state: &TableState, open: &OpenRegion) -> RegionSource {
        match &open.location {
            RegionLocation::Here(region) => RegionSource::Local(Arc::clone(region)),
            RegionLocation::Peer(peer) => RegionSource::Peer {
                peer: Arc::clone(peer),
                table: state.peer_table(),
                start: open.entry.start_key.clone(),
                end: open.entry.end_key.clone(),
            },
        }
    }

    /// Starts reading the region's rows of `scan` (a region holds only its own rows, so the
    /// scan's bounds apply unchanged).
    pub(crate) fn scan(&self, scan: &Scan) -> Result<RegionRows> {
        Ok(match self {
            RegionSource::Local(region) => RegionRows::Local(region.scan(scan)?),
            RegionSource::Peer {
                peer,
                table,
                start,
                end,
            } => RegionRows::Peer(Box::new(PeerRows {
                peer: Arc::clone(peer),
                table: table.clone(),
                chunk: ScanChunk {
                    scan: scan.clone(),
                    region_start: start.clone(),
                    region_end: end.clone(),
                    after: None,
                    max_rows: CHUNK_ROWS,
                },
                ready: VecDeque::new(),
                exhausted: false,
            })),
        })
    }
}

/// The rows of one region being read.
pub(crate) enum RegionRows {
    Local(RegionScanner),
    Peer(Box<PeerRows>),
}

impl RegionRows {
    /// The next row, or `None` when the region has no more.
    pub(crate) fn next_row(&mut self) -> Result<Option<RowResult>> {
        match self {
            RegionRows::Local(scanner) => Ok(scanner.next_row()?),
            RegionRows::Peer(rows) => rows.next_row(),
        }
    }
}

/// A region's rows fetched from its owner a chunk at a time. It keeps no state on the
/// owner: each chunk resumes after the last row returned, so a region that moved between
/// chunks is read on from its new owner once the caller's view of the table catches up.
pub(crate) struct PeerRows {
    peer: Arc<dyn RegionPeer>,
    table: PeerTable,
    chunk: ScanChunk,
    ready: VecDeque<RowResult>,
    exhausted: bool,
}

impl PeerRows {
    fn next_row(&mut self) -> Result<Option<RowResult>> {
        if self.ready.is_empty() && !self.exhausted {
            let rows = self.fetch()?;
            self.exhausted = rows.len() < self.chunk.max_rows;
            if let Some(last) = rows.last() {
                self.chunk.after = Some(last.row.clone());
            }
            self.ready.extend(rows);
        }
        Ok(self.ready.pop_front())
    }
}

impl PeerRows {
    fn fetch(&self) -> Result<Vec<RowResult>> {
        super::until_served(|| self.peer.scan_chunk(&self.table, &self.chunk))
    }
}
