//! The true filters that keep or drop each cell on its own: family, qualifier and value
//! regexes, and the column, timestamp and value ranges.

use super::ranges::{ByteRange, ColumnRange, TimestampRange};
use super::regex::BytesRegex;
use super::FilterCell;

/// A per-cell test.
#[derive(Debug, Clone)]
pub enum CellTest {
    FamilyRegex(BytesRegex),
    QualifierRegex(BytesRegex),
    ValueRegex(BytesRegex),
    ColumnRange(ColumnRange),
    TimestampRange(TimestampRange),
    ValueRange(ByteRange),
}

impl CellTest {
    pub fn keeps(&self, cell: &FilterCell) -> bool {
        match self {
            CellTest::FamilyRegex(regex) => regex.full_match(cell.family.as_bytes()),
            CellTest::QualifierRegex(regex) => regex.full_match(&cell.qualifier),
            CellTest::ValueRegex(regex) => regex.full_match(&cell.value),
            CellTest::ColumnRange(range) => range.contains(cell),
            CellTest::TimestampRange(range) => range.contains(cell.timestamp_micros),
            CellTest::ValueRange(range) => range.contains(&cell.value),
        }
    }

    /// The cells that pass, in their order.
    pub fn keep_matching(&self, mut cells: Vec<FilterCell>) -> Vec<FilterCell> {
        cells.retain(|cell| self.keeps(cell));
        cells
    }
}
