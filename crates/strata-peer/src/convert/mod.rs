//! Conversions between the wire messages and the service's types, both ways. Decoding
//! checks everything a peer could send wrong (an unknown cell type or dialect, a missing
//! read, a bad table name) and answers `InvalidArgument`, never a panic.

use std::collections::BTreeSet;

use strata_engine::{CellType, ColumnSelection, TimeRange};
use strata_server::remote::{ExpectedReads, PeerTable, PeerWrite, RegionWork, ScanChunk};
use strata_server::{Dialect, Result, ServiceError, TableName, WriteDurability};

use crate::messages as m;

fn malformed(what: impl std::fmt::Display) -> ServiceError {
    ServiceError::InvalidArgument(format!("malformed peer message: {what}"))
}

/// A table name as sent.
pub fn table_to_msg(table: &TableName) -> String {
    table.to_string()
}

/// Parses a table name sent by a peer.
pub fn peer_table_from_msg(text: &str, schema: u64) -> Result<PeerTable> {
    Ok(PeerTable {
        name: table_from_msg(text)?,
        schema,
    })
}

/// A table name sent by a peer.
pub fn table_from_msg(text: &str) -> Result<TableName> {
    TableName::parse(text).map_err(|e| malformed(format!("table {text:?}: {e}")))
}

/// A cell as sent, with its sequence id (see [`m::Cell::seq`]).
pub fn cell_to_msg(cell: &strata_engine::Cell) -> m::Cell {
    m::Cell {
        row: cell.row.clone(),
        family: cell.family.clone(),
        qualifier: cell.qualifier.clone(),
        timestamp: cell.timestamp,
        cell_type: u32::from(cell.cell_type.code()),
        value: cell.value.clone(),
        seq: cell.seq,
    }
}

/// A cell sent by a peer; an unknown type code is refused.
pub fn cell_from_msg(cell: m::Cell) -> Result<strata_engine::Cell> {
    let cell_type = u8::try_from(cell.cell_type)
        .ok()
        .and_then(CellType::from_code)
        .ok_or_else(|| malformed(format!("unknown cell type {}", cell.cell_type)))?;
    Ok(strata_engine::Cell {
        row: cell.row,
        family: cell.family,
        qualifier: cell.qualifier,
        timestamp: cell.timestamp,
        cell_type,
        seq: cell.seq,
        value: cell.value,
    })
}

/// Cells as sent.
pub fn cells_to_msg(cells: &[strata_engine::Cell]) -> Vec<m::Cell> {
    cells.iter().map(cell_to_msg).collect()
}

/// Cells sent by a peer.
pub fn cells_from_msg(cells: Vec<m::Cell>) -> Result<Vec<strata_engine::Cell>> {
    cells.into_iter().map(cell_from_msg).collect()
}

/// A column selection as sent: one entry per family.
pub fn columns_to_msg(columns: &ColumnSelection) -> Vec<m::FamilyColumns> {
    columns
        .iter()
        .map(|(family, qualifiers)| m::FamilyColumns {
            family: family.clone(),
            all: qualifiers.is_none(),
            qualifiers: qualifiers.iter().flatten().cloned().collect(),
        })
        .collect()
}

/// A column selection sent by a peer; a family listed twice, or both whole and with
/// qualifiers, is refused.
pub fn columns_from_msg(families: Vec<m::FamilyColumns>) -> Result<ColumnSelection> {
    let mut columns = ColumnSelection::new();
    for f in families {
        if f.all && !f.qualifiers.is_empty() {
            return Err(malformed("a whole family selected with qualifiers"));
        }
        let qualifiers = (!f.all).then(|| f.qualifiers.into_iter().collect::<BTreeSet<_>>());
        if columns.insert(f.family, qualifiers).is_some() {
            return Err(malformed("a family selected twice"));
        }
    }
    Ok(columns)
}

/// A get as sent.
pub fn get_to_msg(get: &strata_engine::Get) -> m::Get {
    m::Get {
        row: get.row.clone(),
        columns: columns_to_msg(&get.columns),
        max_versions: get.max_versions,
        time_min: get.time_range.min,
        time_max: get.time_range.max,
    }
}

/// A get sent by a peer (`None`: the field was missing).
pub fn get_from_msg(get: Option<m::Get>) -> Result<strata_engine::Get> {
    let get = get.ok_or_else(|| malformed("missing get"))?;
    Ok(strata_engine::Get {
        row: get.row,
        columns: columns_from_msg(get.columns)?,
        max_versions: get.max_versions,
        time_range: TimeRange::new(get.time_min, get.time_max),
    })
}

/// A scan as sent, without its limit (a chunk has its own).
pub fn scan_to_msg(scan: &strata_engine::Scan) -> m::Scan {
    m::Scan {
        start_row: scan.start_row.clone(),
        stop_row: scan.stop_row.clone(),
        reversed: scan.reversed,
        columns: columns_to_msg(&scan.columns),
        max_versions: scan.max_versions,
        time_min: scan.time_range.min,
        time_max: scan.time_range.max,
        cache_blocks: scan.cache_blocks,
    }
}

/// A scan sent by a peer, with no limit.
pub fn scan_from_msg(scan: Option<m::Scan>) -> Result<strata_engine::Scan> {
    let scan = scan.ok_or_else(|| malformed("missing scan"))?;
    Ok(strata_engine::Scan {
        start_row: scan.start_row,
        stop_row: scan.stop_row,
        reversed: scan.reversed,
        columns: columns_from_msg(scan.columns)?,
        max_versions: scan.max_versions,
        time_range: TimeRange::new(scan.time_min, scan.time_max),
        limit: None,
        cache_blocks: scan.cache_blocks,
    })
}

/// A row as sent.
pub fn row_to_msg(row: &strata_engine::RowResult) -> m::RowResult {
    m::RowResult {
        row: row.row.clone(),
        cells: cells_to_msg(&row.cells),
    }
}

/// A row sent by a peer.
pub fn row_from_msg(row: m::RowResult) -> Result<strata_engine::RowResult> {
    Ok(strata_engine::RowResult {
        row: row.row,
        cells: cells_from_msg(row.cells)?,
    })
}

/// Rows sent by a peer.
pub fn rows_from_msg(rows: Vec<m::RowResult>) -> Result<Vec<strata_engine::RowResult>> {
    rows.into_iter().map(row_from_msg).collect()
}

/// Expected reads as sent; an absent answer is "no row".
pub fn expected_to_msg(expected: &ExpectedReads) -> Vec<m::ExpectedRead> {
    expected
        .iter()
        .map(|(get, answer)| m::ExpectedRead {
            get: Some(get_to_msg(get)),
            answer: answer.as_ref().map(row_to_msg),
        })
        .collect()
}

/// Expected reads sent by a peer.
pub fn expected_from_msg(expected: Vec<m::ExpectedRead>) -> Result<ExpectedReads> {
    expected
        .into_iter()
        .map(|read| {
            Ok((
                get_from_msg(read.get)?,
                read.answer.map(row_from_msg).transpose()?,
            ))
        })
        .collect()
}

/// A dialect's wire code.
pub fn dialect_to_msg(dialect: Dialect) -> i32 {
    match dialect {
        Dialect::Hbase => m::Dialect::Hbase as i32,
        Dialect::Bigtable => m::Dialect::Bigtable as i32,
    }
}

/// A dialect sent by a peer; an unknown code is refused.
pub fn dialect_from_msg(code: i32) -> Result<Dialect> {
    match m::Dialect::try_from(code) {
        Ok(m::Dialect::Hbase) => Ok(Dialect::Hbase),
        Ok(m::Dialect::Bigtable) => Ok(Dialect::Bigtable),
        Err(_) => Err(malformed(format!("unknown dialect {code}"))),
    }
}

/// The code of a region maintenance request.
pub fn work_to_msg(work: RegionWork) -> i32 {
    match work {
        RegionWork::Flush => m::RegionWork::Flush as i32,
        RegionWork::Compact => m::RegionWork::Compact as i32,
        RegionWork::MajorCompact => m::RegionWork::MajorCompact as i32,
        RegionWork::Measure => m::RegionWork::Measure as i32,
        RegionWork::Release => m::RegionWork::Release as i32,
    }
}

/// A region maintenance request sent by a peer; an unknown code is refused.
pub fn work_from_msg(code: i32) -> Result<RegionWork> {
    match m::RegionWork::try_from(code) {
        Ok(m::RegionWork::Flush) => Ok(RegionWork::Flush),
        Ok(m::RegionWork::Compact) => Ok(RegionWork::Compact),
        Ok(m::RegionWork::MajorCompact) => Ok(RegionWork::MajorCompact),
        Ok(m::RegionWork::Measure) => Ok(RegionWork::Measure),
        Ok(m::RegionWork::Release) => Ok(RegionWork::Release),
        Err(_) => Err(malformed(format!("unknown region work {code}"))),
    }
}

/// A write's dialect and durability sent by a peer.
pub fn write_from_msg(dialect: i32, durability: &str) -> Result<PeerWrite> {
    Ok(PeerWrite {
        dialect: dialect_from_msg(dialect)?,
        durability: durability
            .parse::<WriteDurability>()
            .map_err(|e| malformed(format!("durability: {e}")))?,
    })
}

/// A scan chunk as sent.
pub fn chunk_to_msg(table: &PeerTable, chunk: &ScanChunk) -> m::ScanChunkRequest {
    m::ScanChunkRequest {
        table: table_to_msg(&table.name),
        schema: table.schema,
        scan: Some(scan_to_msg(&chunk.scan)),
        region_start: chunk.region_start.clone(),
        region_end: chunk.region_end.clone(),
        after: chunk.after.clone(),
        // usize is at most 64 bits on every target Rust supports; saturate regardless.
        max_rows: u64::try_from(chunk.max_rows).unwrap_or(u64::MAX),
    }
}

/// A scan chunk sent by a peer, with its table.
pub fn chunk_from_msg(request: m::ScanChunkRequest) -> Result<(PeerTable, ScanChunk)> {
    let table = peer_table_from_msg(&request.table, request.schema)?;
    let max_rows = usize::try_from(request.max_rows)
        .map_err(|_| malformed(format!("max_rows {} is too large", request.max_rows)))?;
    let chunk = ScanChunk {
        scan: scan_from_msg(request.scan)?,
        region_start: request.region_start,
        region_end: request.region_end,
        after: request.after,
        max_rows,
    };
    Ok((table, chunk))
}

#[cfg(test)]
mod tests;
