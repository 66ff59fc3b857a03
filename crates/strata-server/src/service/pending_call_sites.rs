//! Test-only calls on [`Service`] by their old names, for the unit tests of `row_stream/`,
//! `status.rs` and `region_sizes.rs`: those files are being restructured on another branch
//! at the same time, so their tests keep the old call sites until that work is merged. Then
//! their calls go through the components (`svc.rows().mutate(...)`) and this file goes.

use bytes::Bytes;
use strata_engine::{Cell, FamilyOptions, Get, RowResult, Scan};

use super::Service;
use crate::durability::WriteDurability;
use crate::error::Result;
use crate::names::TableName;
use crate::row_stream::RowStream;
use crate::status::TableStatus;
use crate::table::RegionInfo;

impl Service {
    pub(crate) fn create_table(
        &self,
        name: &TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
    ) -> Result<()> {
        self.admin().create_table(name, families, split_keys)
    }

    pub(crate) fn mutate(
        &self,
        table: &TableName,
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<()> {
        self.rows().mutate(table, cells, durability)
    }

    pub(crate) fn get(&self, table: &TableName, get: &Get) -> Result<Option<RowResult>> {
        self.rows().get(table, get)
    }

    pub(crate) fn table_status(&self) -> Vec<TableStatus> {
        self.admin().table_status()
    }

    pub(crate) fn one_table_status(&self, name: &TableName) -> Option<TableStatus> {
        self.admin().one_table_status(name)
    }

    pub(crate) fn region_sizes(&self, table: &TableName) -> Result<Vec<(RegionInfo, u64)>> {
        self.admin().region_sizes(table)
    }

    pub(crate) fn open_scanner(&self, table: &TableName, scan: Scan) -> Result<u64> {
        self.scanners().open_scanner(table, scan)
    }

    pub(crate) fn scanner_next(&self, id: u64, max_rows: usize) -> Result<Vec<RowResult>> {
        self.scanners().scanner_next(id, max_rows)
    }

    pub(crate) fn scan_rows(&self, table: &TableName, scan: Scan) -> Result<RowStream> {
        self.scanners().scan_rows(table, scan)
    }
}
