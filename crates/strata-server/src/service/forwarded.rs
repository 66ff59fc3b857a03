//! Requests another server forwarded here (cluster mode; see `remote/`): each is served
//! only from regions open on this server and answers a retryable `NotServingRegion`
//! otherwise, so a request travels at most one hop.

use strata_engine::{Cell, Get, RowResult};

use super::Service;
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::remote::{ExpectedReads, Origin, PeerWrite, RegionWork, RowSpan, ScanChunk};

/// A peer forwards a request here because it sees this server serving the region: a table
/// this server does not know yet means its view of the catalog is behind the peer's, so
/// the answer is the retryable "not serving" (the peer tries again), not "no such table".
fn not_known_yet<T>(table: &TableName, outcome: Result<T>) -> Result<T> {
    match outcome {
        Err(ServiceError::TableNotFound(_)) => Err(ServiceError::NotServingRegion {
            table: table.to_string(),
            region: 0,
        }),
        other => other,
    }
}

impl Service {
    /// A forwarded [`Service::get`].
    pub fn serve_get(&self, table: &TableName, get: &Get) -> Result<Option<RowResult>> {
        self.directory.check_serving()?;
        not_known_yet(table, self.rows.get_from(Origin::Peer, table, get))
    }

    /// A forwarded mutation of one region's cells.
    pub fn serve_mutate(
        &self,
        table: &TableName,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<()> {
        let outcome =
            self.rows
                .mutate_from(Origin::Peer, write.dialect, table, cells, write.durability);
        not_known_yet(table, outcome)
    }

    /// A forwarded conditional write: `cells` are applied if every read in `expected`
    /// answers the same under the row's lock. Returns whether they were.
    pub fn serve_mutate_if(
        &self,
        table: &TableName,
        row: &[u8],
        expected: &ExpectedReads,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<bool> {
        let outcome = self
            .rows
            .mutate_if_unchanged(table, row, expected, cells, write);
        not_known_yet(table, outcome)
    }

    /// Flushes or compacts this server's regions of `table` overlapping `range` (a peer
    /// asks for its share of a table-wide flush or compaction).
    pub fn serve_maintain(
        &self,
        table: &TableName,
        range: &RowSpan,
        work: RegionWork,
    ) -> Result<()> {
        let outcome = self.directory.maintain(table, range, work, Origin::Peer);
        not_known_yet(table, outcome)
    }

    /// A forwarded chunk of one region's rows.
    pub fn serve_scan_chunk(&self, table: &TableName, chunk: &ScanChunk) -> Result<Vec<RowResult>> {
        not_known_yet(table, self.directory.scan_chunk_here(table, chunk))
    }
}
