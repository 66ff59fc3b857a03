//! Strata's cells and rows in HBase's protobuf form.

use strata_engine::{Cell, RowResult};

use crate::pb;

/// One cell.
pub fn cell(cell: &Cell) -> pb::Cell {
    pb::Cell {
        row: Some(cell.row.clone()),
        family: Some(cell.family.clone()),
        qualifier: Some(cell.qualifier.clone()),
        timestamp: Some(cell.timestamp as u64),
        cell_type: Some(cell.cell_type.code() as i32),
        value: Some(cell.value.clone()),
        tags: None,
    }
}

/// A row's cells as a Result (an empty Result for no row).
pub fn result(row: Option<&RowResult>) -> pb::Result {
    pb::Result {
        cell: row
            .map(|r| r.cells.iter().map(cell).collect())
            .unwrap_or_default(),
        ..Default::default()
    }
}

/// A list of cells as a Result.
pub fn cells_result(cells: &[Cell]) -> pb::Result {
    pb::Result {
        cell: cells.iter().map(cell).collect(),
        ..Default::default()
    }
}
