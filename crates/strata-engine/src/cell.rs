//! The HBase data model: a cell is (row, family, qualifier, timestamp, type) -> value, plus the
//! MVCC sequence id of the write that produced it.

use bytes::Bytes;

use crate::error::{Error, Result};

/// HBase's `KeyValue.Type`. The numeric codes are HBase's own, and at equal coordinates a higher
/// code sorts first, which puts delete markers before puts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CellType {
    /// A value.
    Put = 4,
    /// Deletes exactly one version of one column.
    Delete = 8,
    /// Deletes one timestamp in every column of the family.
    DeleteFamilyVersion = 10,
    /// Deletes all versions of one column at or below the timestamp.
    DeleteColumn = 12,
    /// Deletes every column of the family at or below the timestamp.
    DeleteFamily = 14,
}

impl CellType {
    /// The on-disk code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Parses an on-disk code.
    pub fn from_code(code: u8) -> Option<CellType> {
        Some(match code {
            4 => CellType::Put,
            8 => CellType::Delete,
            10 => CellType::DeleteFamilyVersion,
            12 => CellType::DeleteColumn,
            14 => CellType::DeleteFamily,
            _ => return None,
        })
    }

    /// True for the four delete marker kinds.
    pub fn is_delete(self) -> bool {
        self != CellType::Put
    }

    /// True for markers that apply to the whole family (stored with an empty qualifier).
    pub fn is_family_marker(self) -> bool {
        matches!(self, CellType::DeleteFamily | CellType::DeleteFamilyVersion)
    }
}

/// HBase's "latest timestamp": a write carrying it gets the server's current time.
pub const LATEST_TIMESTAMP: i64 = i64::MAX;

/// Largest row key HBase accepts (Short.MAX_VALUE bytes).
pub const MAX_ROW_LEN: usize = i16::MAX as usize;

/// One cell with all its coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub row: Bytes,
    pub family: Bytes,
    pub qualifier: Bytes,
    pub timestamp: i64,
    pub cell_type: CellType,
    /// MVCC sequence id of the write; 0 until the region assigns one.
    pub seq: u64,
    pub value: Bytes,
}

impl Cell {
    /// A put cell.
    pub fn put(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
        value: impl Into<Bytes>,
    ) -> Cell {
        Cell {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
            cell_type: CellType::Put,
            seq: 0,
            value: value.into(),
        }
    }

    /// A delete marker of `cell_type`. Family markers ignore the qualifier.
    pub fn delete(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
        cell_type: CellType,
    ) -> Cell {
        let qualifier = if cell_type.is_family_marker() {
            Bytes::new()
        } else {
            qualifier.into()
        };
        Cell {
            row: row.into(),
            family: family.into(),
            qualifier,
            timestamp,
            cell_type,
            seq: 0,
            value: Bytes::new(),
        }
    }

    /// Checks the limits HBase enforces on every mutation.
    pub fn validate(&self) -> Result<()> {
        if self.row.is_empty() {
            return Err(Error::InvalidArgument("row key must not be empty".into()));
        }
        if self.row.len() > MAX_ROW_LEN {
            return Err(Error::InvalidArgument(format!(
                "row key is {} bytes, the limit is {MAX_ROW_LEN}",
                self.row.len()
            )));
        }
        if self.timestamp < 0 {
            return Err(Error::InvalidArgument(format!(
                "timestamp {} is negative",
                self.timestamp
            )));
        }
        Ok(())
    }
}
