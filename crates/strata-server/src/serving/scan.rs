//! Scanning a table whose regions may be served elsewhere: a scan plan lists each region
//! as a [`RegionSource`], and reading one gives [`RegionRows`], from the engine for a
//! region here or in chunks from its owner for one elsewhere.

use std::collections::VecDeque;
use std::sync::{Arc, Weak};

use bytes::Bytes;
use strata_engine::{Region, RegionScanner, RowResult, Scan};

use super::{Reach, ServingRegion};
use crate::directory::TableDirectory;
use crate::error::{Result, ServiceError};
use crate::remote::{Origin, PeerTable, RegionPeer, ScanChunk};
use crate::table::{OpenRegion, TableState};

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
        /// Where to find the region again if it moves while it is read.
        directory: Weak<TableDirectory>,
    },
}

/// The regions of `state` that `wanted` accepts, in key order, as a scan from `origin`
/// reads them (a peer's scan only from regions here: any other refuses it).
pub(crate) fn scan_plan(
    directory: &Arc<TableDirectory>,
    state: &TableState,
    origin: Origin,
    wanted: impl Fn(&OpenRegion) -> bool,
) -> Result<VecDeque<RegionSource>> {
    let mut plan = VecDeque::new();
    for (index, open) in state.regions.iter().enumerate() {
        if wanted(open) {
            plan.push_back(ServingRegion::of(state, index, origin)?.scan_source(directory));
        }
    }
    Ok(plan)
}

impl ServingRegion<'_> {
    /// Where a scan plan reads the region from. One for a peer's region remembers the
    /// `directory`, to find the region again if it moves while it is read.
    fn scan_source(&self, directory: &Arc<TableDirectory>) -> RegionSource {
        let entry = &self.state.regions[self.index].entry;
        match &self.reach {
            Reach::Here(region) => RegionSource::Local(Arc::clone(region)),
            Reach::Peer(peer) => RegionSource::Peer {
                peer: Arc::clone(peer),
                table: self.state.peer_table(),
                start: entry.start_key.clone(),
                end: entry.end_key.clone(),
                directory: Arc::downgrade(directory),
            },
        }
    }

    /// Where the next chunk of the region is read, and the table as it names it.
    fn chunk_source(&self) -> (PeerTable, Source) {
        let from = match &self.reach {
            Reach::Here(_) => Source::Here,
            Reach::Peer(peer) => Source::Peer(Arc::clone(peer)),
        };
        (self.state.peer_table(), from)
    }
}

impl RegionSource {
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
                directory,
            } => RegionRows::Peer(Box::new(PeerRows {
                from: Source::Peer(Arc::clone(peer)),
                table: table.clone(),
                chunk: ScanChunk {
                    scan: scan.clone(),
                    region_start: start.clone(),
                    region_end: end.clone(),
                    after: None,
                    max_rows: CHUNK_ROWS,
                },
                directory: directory.clone(),
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

/// Where a region read in chunks is read from now.
enum Source {
    Peer(Arc<dyn RegionPeer>),
    /// The region moved here while it was read.
    Here,
}

/// A region's rows fetched a chunk at a time. It keeps no state on the owner: each chunk
/// resumes after the last row returned, so when the region moves (or its owner dies and
/// it is reassigned) the next chunk comes from wherever the directory then places it.
pub(crate) struct PeerRows {
    from: Source,
    table: PeerTable,
    chunk: ScanChunk,
    directory: Weak<TableDirectory>,
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

    /// The next chunk, from where the region is; while it is not served (just assigned,
    /// moving, its owner dead), asked again where the directory places it next.
    fn fetch(&mut self) -> Result<Vec<RowResult>> {
        let mut first = true;
        crate::remote::until_served(|| {
            if !std::mem::take(&mut first) {
                self.relocate();
            }
            match &self.from {
                Source::Peer(peer) => peer.scan_chunk(&self.table, &self.chunk),
                Source::Here => match self.directory.upgrade() {
                    Some(directory) => crate::row_stream::scan_chunk_here(
                        &directory,
                        &self.table.name,
                        &self.chunk,
                    ),
                    None => Err(ServiceError::NotServingRegion {
                        table: self.table.name.to_string(),
                        region: 0,
                    }),
                },
            }
        })
    }

    /// Finds the region again in the directory (by its first row: a move keeps bounds).
    fn relocate(&mut self) {
        let Some(directory) = self.directory.upgrade() else {
            return;
        };
        let Ok(state) = directory.table(&self.table.name) else {
            return;
        };
        let index = state.region_index_for(&self.chunk.region_start);
        let Ok(region) = ServingRegion::of(&state, index, Origin::Client) else {
            return;
        };
        (self.table, self.from) = region.chunk_source();
    }
}
