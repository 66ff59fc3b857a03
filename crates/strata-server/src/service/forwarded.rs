//! [`PeerServing`]: requests another server forwarded here (cluster mode; see `remote/`),
//! row operations here and administration in `admin_served.rs`. Each is served
//! only from regions open here and answers a retryable `NotServingRegion` otherwise, so a
//! request travels at most one hop. Each names the table with the digest of its catalog
//! record as the sender sees it; a server whose own view differs reads the catalog again
//! first, so it never serves a request with an older idea of the table's families, state
//! or regions than the sender's.

use std::sync::Arc;

use strata_engine::{Cell, Get, RowResult};

use super::admin::Admin;
use crate::directory::TableDirectory;
use crate::error::{Result, ServiceError};
use crate::remote::{ExpectedReads, Origin, PeerTable, PeerWrite, RegionWork, RowSpan, ScanChunk};
use crate::rows::RowOperations;

/// What this server serves to its peers: their forwarded row operations and, as master,
/// their administration.
pub struct PeerServing {
    pub(super) directory: Arc<TableDirectory>,
    pub(super) rows: Arc<RowOperations>,
    /// Carries out the administration peers send to the master.
    pub(super) admin: Arc<Admin>,
}

/// The retryable answer to a request this server cannot serve with its view of the table.
fn not_in_step(table: &PeerTable) -> ServiceError {
    ServiceError::NotServingRegion {
        table: table.name.to_string(),
        region: 0,
    }
}

impl PeerServing {
    /// `Ok` once this server's view of the table is the sender's (catching up with the
    /// catalog if it is behind).
    fn in_step_with(&self, table: &PeerTable) -> Result<()> {
        self.directory.check_serving()?;
        let schema = || self.directory.table(&table.name).ok().map(|s| s.schema());
        if schema() == Some(table.schema) {
            return Ok(());
        }
        self.directory.catalog_sync().follow()?;
        match schema() {
            Some(schema) if schema == table.schema => Ok(()),
            _ => Err(not_in_step(table)),
        }
    }

    /// A forwarded [`Rows::get`](super::Rows::get).
    pub fn serve_get(&self, table: &PeerTable, get: &Get) -> Result<Option<RowResult>> {
        self.in_step_with(table)?;
        self.rows.get_from(Origin::Peer, &table.name, get)
    }

    /// A forwarded mutation of one region's cells.
    pub fn serve_mutate(
        &self,
        table: &PeerTable,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<()> {
        self.in_step_with(table)?;
        let (dialect, durability) = (write.dialect, write.durability);
        self.rows
            .mutate_from(Origin::Peer, dialect, &table.name, cells, durability)
    }

    /// A forwarded conditional write: `cells` are applied if every read in `expected`
    /// answers the same under the row's lock. Returns whether they were.
    pub fn serve_mutate_if(
        &self,
        table: &PeerTable,
        row: &[u8],
        expected: &ExpectedReads,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<bool> {
        self.in_step_with(table)?;
        self.rows
            .mutate_if_unchanged(&table.name, row, expected, cells, write)
    }

    /// Does `work` on this server's regions of `table` overlapping `range` (a peer asks for
    /// its share of a table-wide flush, compaction or size); answers their size in bytes.
    pub fn serve_maintain(
        &self,
        table: &PeerTable,
        range: &RowSpan,
        work: RegionWork,
    ) -> Result<u64> {
        self.in_step_with(table)?;
        self.directory
            .maintenance()
            .on_span(&table.name, range, work, Origin::Peer)
    }

    /// A forwarded chunk of one region's rows.
    pub fn serve_scan_chunk(&self, table: &PeerTable, chunk: &ScanChunk) -> Result<Vec<RowResult>> {
        self.in_step_with(table)?;
        crate::row_stream::scan_chunk_here(&self.directory, &table.name, chunk)
    }
}
