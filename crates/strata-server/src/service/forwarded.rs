//! Requests another server forwarded here (cluster mode; see `remote/`): each is served
//! only from regions open on this server and answers a retryable `NotServingRegion`
//! otherwise, so a request travels at most one hop.

use strata_engine::{Cell, Get, RowResult};

use super::Service;
use crate::error::Result;
use crate::names::TableName;
use crate::remote::{ExpectedReads, Origin, PeerWrite, ScanChunk};

impl Service {
    /// A forwarded [`Service::get`].
    pub fn serve_get(&self, table: &TableName, get: &Get) -> Result<Option<RowResult>> {
        self.directory.check_serving()?;
        self.rows.get_from(Origin::Peer, table, get)
    }

    /// A forwarded mutation of one region's cells.
    pub fn serve_mutate(
        &self,
        table: &TableName,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<()> {
        self.rows
            .mutate_from(Origin::Peer, write.dialect, table, cells, write.durability)
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
        self.rows
            .mutate_if_unchanged(table, row, expected, cells, write)
    }

    /// A forwarded chunk of one region's rows.
    pub fn serve_scan_chunk(&self, table: &TableName, chunk: &ScanChunk) -> Result<Vec<RowResult>> {
        self.directory.scan_chunk_here(table, chunk)
    }
}
