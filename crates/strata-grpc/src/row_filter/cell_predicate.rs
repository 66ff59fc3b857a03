//! The true filters that keep or drop each cell on its own: family, qualifier and value
//! regexes, and the column, timestamp and value ranges.

use super::ranges::{ByteRange, ColumnRange, TimestampRange};
use super::regex::BytesRegex;
use super::FilterCell;

/// A per-cell predicate: does this one cell pass?
#[derive(Debug, Clone)]
pub enum CellPredicate {
    FamilyRegex(BytesRegex),
    QualifierRegex(BytesRegex),
    ValueRegex(BytesRegex),
    ColumnRange(ColumnRange),
    TimestampRange(TimestampRange),
    ValueRange(ByteRange),
}

impl CellPredicate {
    pub fn keeps(&self, cell: &FilterCell) -> bool {
        match self {
            CellPredicate::FamilyRegex(regex) => regex.full_match(cell.family.as_bytes()),
            CellPredicate::QualifierRegex(regex) => regex.full_match(&cell.qualifier),
            CellPredicate::ValueRegex(regex) => regex.full_match(&cell.value),
            CellPredicate::ColumnRange(range) => range.contains(cell),
            CellPredicate::TimestampRange(range) => range.contains(cell.timestamp_micros),
            CellPredicate::ValueRange(range) => range.contains(&cell.value),
        }
    }

    /// The cells that pass, in their order.
    pub fn keep_matching(&self, mut cells: Vec<FilterCell>) -> Vec<FilterCell> {
        cells.retain(|cell| self.keeps(cell));
        cells
    }
}
