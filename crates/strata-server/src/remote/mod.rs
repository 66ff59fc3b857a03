//! Regions served by other servers (cluster mode).
//!
//! A table's directory lists every region; those another server serves are placed there
//! with a [`RegionPeer`], the client of that server. The service's row operations and
//! scanners route by row as always and reach each region through its `ServingRegion`
//! (`serving/`), which hands a peer region's share to the peer through four primitives,
//! chosen so that every operation keeps its meaning across servers:
//!
//! - `get` and `mutate`: a read and an atomic per-region mutation;
//! - `mutate_if`: a write applied only if reads the caller made still answer the same,
//!   checked under the row's lock on the owner. Every read-modify-write (increment,
//!   append, check-and-mutate, Bigtable's rules) is built on it: the caller reads, computes
//!   and asks; a refusal means the row changed, and the operation runs again. Row
//!   operations may already run more than once (see `rows/locked_row.rs`), so their
//!   closures need not travel;
//! - `scan_chunk`: up to N rows of a range after a given row, so a scanner holds no state
//!   on the owner and resumes after its last row wherever the region has moved.
//!
//! Administration (creating a table, moving a region) is carried out by the master alone:
//! another server sends it there with [`RegionPeer::admin`] (`admin.rs`).
//!
//! The owner serves them through [`Service`](crate::Service)'s `serve_*` calls
//! (`service/forwarded.rs`), which answer only from regions open here: a request is
//! forwarded at most once, and a stale view on either side ends in a retryable
//! `NotServingRegion`.

mod admin;
pub mod admin_codec;
mod errors;
#[cfg(test)]
mod tests;

use bytes::Bytes;
use strata_engine::{Cell, Get, RowResult, Scan};

use crate::durability::WriteDurability;
use crate::error::Result;
use crate::limits::Dialect;
use crate::names::TableName;

pub(crate) use admin::{not_master, send_to_master};
pub use admin::{AdminReply, AdminRequest, Master, MasterLink};
pub use errors::{error_from_parts, error_to_parts, Named};

/// How often a request a peer does not serve yet is sent again.
const NOT_SERVING_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// How long a request waits for a region's peer to serve it.
const NOT_SERVING_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Runs `call` (a request to a peer; reads and maintenance, which may be sent twice) again
/// while the peer answers that it does not serve the region yet (it was just assigned
/// there, or its view of the table is catching up) or cannot be reached (it died, and the
/// region is being reassigned), every [`NOT_SERVING_POLL`] for up to [`NOT_SERVING_WAIT`].
/// `call` should find the region's current place each time. Row operations wait in
/// `rows/` instead, where they also follow the directory.
pub(crate) fn until_served<T>(mut call: impl FnMut() -> Result<T>) -> Result<T> {
    // Known gap: this wait should take the service's clock (issue 25's clock seam).
    #[allow(clippy::disallowed_methods)]
    let clock = strata_runtime::clock::system();
    let deadline = clock.now() + NOT_SERVING_WAIT;
    loop {
        match call() {
            Err(
                crate::error::ServiceError::NotServingRegion { .. }
                | crate::error::ServiceError::PeerUnavailable { .. },
            ) if clock.now() < deadline => clock.sleep(NOT_SERVING_POLL),
            other => return other,
        }
    }
}

/// Who sent a request: a client, or a peer forwarding a client's request. A forwarded
/// request is answered only from regions open here, never forwarded again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Client,
    Peer,
}

/// A table as a forwarding server sees it: its name, and a digest of its catalog record
/// (families, state, regions). The owner serves the request only once its own view of the
/// table has the same digest, catching up with the catalog first if it is behind: a
/// request never meets an owner that does not know a family just added, or still serves a
/// table just disabled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerTable {
    pub name: TableName,
    pub schema: u64,
}

/// Reads a caller made of a row, with what they answered: a `mutate_if` applies its cells
/// only if each read still answers the same.
pub type ExpectedReads = Vec<(Get, Option<RowResult>)>;

/// How a forwarded write is checked and made durable, as the client asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerWrite {
    /// Whose size limits the cells were checked against (the owner checks them again).
    pub dialect: Dialect,
    /// What the request asked for; the owner resolves `USE_DEFAULT` with the table's.
    pub durability: WriteDurability,
}

/// The rows of one region a scan reads, to fetch from another server, and where to
/// resume.
#[derive(Debug, Clone)]
pub struct ScanChunk {
    /// The scan as the client asked it; `limit` is ignored (`max_rows` bounds a chunk).
    pub scan: Scan,
    /// The region's first row (inclusive; empty: the table's start).
    pub region_start: Bytes,
    /// The region's last row (exclusive; empty: the table's end).
    pub region_end: Bytes,
    /// Rows up to and including this one (in scan order) were returned already.
    pub after: Option<Bytes>,
    /// Most rows to return; fewer means the range is exhausted.
    pub max_rows: usize,
}

/// Where a server answers clients: what `getTableRegions` and REST's `/<table>/regions`
/// report as a region's location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerAddress {
    pub host: String,
    pub thrift_port: u16,
    pub http_port: u16,
    pub grpc_port: u16,
}

/// Another server's regions, as the forwarding server sees them. Implemented by the
/// internal RPC client (cluster mode) and, in tests, by another in-process service.
pub trait RegionPeer: Send + Sync + std::fmt::Debug {
    /// Where the peer is, for errors and status.
    fn address(&self) -> String;

    /// Where the peer answers clients, when known.
    fn served_at(&self) -> Option<ServerAddress> {
        None
    }

    /// Reads one row.
    fn get(&self, table: &PeerTable, get: &Get) -> Result<Option<RowResult>>;

    /// Applies `cells` (all in one region of the peer) atomically.
    fn mutate(&self, table: &PeerTable, cells: Vec<Cell>, write: PeerWrite) -> Result<()>;

    /// Applies `cells` (all in `row`) if every read in `expected` still answers the same;
    /// returns whether they were applied.
    fn mutate_if(
        &self,
        table: &PeerTable,
        row: &[u8],
        expected: ExpectedReads,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<bool>;

    /// Up to `chunk.max_rows` rows of the chunk's range.
    fn scan_chunk(&self, table: &PeerTable, chunk: &ScanChunk) -> Result<Vec<RowResult>>;

    /// Does `work` on the peer's regions of `table` overlapping `range`; answers their size
    /// in bytes (SSTables and memstores) after it.
    fn maintain(&self, table: &PeerTable, range: &RowSpan, work: RegionWork) -> Result<u64>;

    /// Has the peer, as master, carry out an administration request (see `admin.rs`). A
    /// peer that cannot answers `NotMaster`.
    fn admin(&self, _request: &AdminRequest) -> Result<AdminReply> {
        Err(not_master())
    }
}

/// What [`RegionPeer::maintain`] does to each region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionWork {
    /// Nothing: only their size is wanted.
    Measure,
    Flush,
    /// A minor compaction.
    Compact,
    /// A flush, then a major compaction.
    MajorCompact,
    /// Stop serving it for a move: seal, flush, close (see
    /// `Placements::release_region`).
    Release,
}

/// Rows `[start, end)`; empty bounds are open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowSpan {
    pub start: Bytes,
    pub end: Bytes,
}

impl RowSpan {
    /// True if region `[region_start, region_end)` holds rows of the span.
    pub fn overlaps(&self, region_start: &[u8], region_end: &[u8]) -> bool {
        let before_end = self.end.is_empty() || region_start < self.end.as_ref();
        let after_start = region_end.is_empty() || region_end > self.start.as_ref();
        before_end && after_start
    }
}

/// The peer of a region no server serves at the moment (its owner died and the master has
/// not assigned it yet): every request answers the retryable `NotServingRegion`, which a
/// client's request waits out until the region is placed.
#[derive(Debug, Clone, Copy)]
pub struct Unplaced {
    pub region: u64,
}

impl Unplaced {
    fn refuse<T>(&self, table: &PeerTable) -> Result<T> {
        Err(crate::error::ServiceError::NotServingRegion {
            table: table.name.to_string(),
            region: self.region,
        })
    }
}

impl RegionPeer for Unplaced {
    fn address(&self) -> String {
        "(no server)".into()
    }
    fn get(&self, table: &PeerTable, _get: &Get) -> Result<Option<RowResult>> {
        self.refuse(table)
    }
    fn mutate(&self, table: &PeerTable, _cells: Vec<Cell>, _write: PeerWrite) -> Result<()> {
        self.refuse(table)
    }
    fn mutate_if(
        &self,
        table: &PeerTable,
        _row: &[u8],
        _expected: ExpectedReads,
        _cells: Vec<Cell>,
        _write: PeerWrite,
    ) -> Result<bool> {
        self.refuse(table)
    }
    fn scan_chunk(&self, table: &PeerTable, _chunk: &ScanChunk) -> Result<Vec<RowResult>> {
        self.refuse(table)
    }
    fn maintain(&self, table: &PeerTable, _range: &RowSpan, _work: RegionWork) -> Result<u64> {
        self.refuse(table)
    }
}
