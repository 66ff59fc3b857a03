//! Engine rows to Thrift results, shaped as HBase's Thrift1 server shapes them.

use pilota::AHashMap;
use strata_engine::{Cell, RowResult};

use crate::columns::column_name;
use crate::gen::volo_gen::hbase::{self as t, TCell, TColumn, TRowResult, Text};

/// One cell as a TCell: value and timestamp only.
pub fn tcell(cell: &Cell) -> TCell {
    TCell {
        value: Some(t::Bytes(cell.value.clone())),
        timestamp: Some(cell.timestamp),
    }
}

/// Every cell, in the engine's order (family, qualifier, newest first).
pub fn tcells(row: Option<&RowResult>) -> Vec<TCell> {
    row.map(|r| r.cells.iter().map(tcell).collect())
        .unwrap_or_default()
}

/// A row as a TRowResult. HBase fills `columns` (keyed `family:qualifier`), or, when the scanner
/// was opened with sortColumns, `sortedColumns` in cell order instead; never both. When a
/// column has several versions in `columns`, the map keeps the last one written to it, which is
/// the oldest, as HBase's TreeMap does.
pub fn row_result(row: &RowResult, sorted: bool) -> TRowResult {
    let (columns, sorted_columns) = if sorted {
        let list = row
            .cells
            .iter()
            .map(|c| TColumn {
                column_name: Some(Text(column_name(&c.family, &c.qualifier))),
                cell: Some(tcell(c)),
            })
            .collect();
        (None, Some(list))
    } else {
        let mut map = AHashMap::with_capacity(row.cells.len());
        for c in &row.cells {
            map.insert(Text(column_name(&c.family, &c.qualifier)), tcell(c));
        }
        (Some(map), None)
    };
    TRowResult {
        row: Some(Text(row.row.clone())),
        columns,
        sorted_columns,
    }
}

/// Rows as HBase returns them: rows with no cells are left out.
pub fn row_results<'a>(
    rows: impl IntoIterator<Item = &'a RowResult>,
    sorted: bool,
) -> Vec<TRowResult> {
    rows.into_iter()
        .filter(|r| !r.cells.is_empty())
        .map(|r| row_result(r, sorted))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn row() -> RowResult {
        RowResult {
            row: Bytes::from_static(b"r1"),
            cells: vec![
                Cell::put("r1", "a", "x", 20, "new"),
                Cell::put("r1", "a", "x", 10, "old"),
                Cell::put("r1", "b", "", 5, "empty-qualifier"),
            ],
        }
    }

    #[test]
    fn columns_are_keyed_family_colon_qualifier() {
        let r = row_result(&row(), false);
        assert_eq!(r.row.map(|t| t.0), Some(Bytes::from_static(b"r1")));
        assert!(r.sorted_columns.is_none());
        let columns = r.columns.expect("columns map");
        assert_eq!(columns.len(), 2);
        assert_eq!(columns[&Text(Bytes::from_static(b"b:"))].timestamp, Some(5));
        assert!(columns.contains_key(&Text(Bytes::from_static(b"a:x"))));
    }

    #[test]
    fn sorted_columns_keep_every_cell_in_order() {
        let r = row_result(&row(), true);
        assert!(r.columns.is_none());
        let list = r.sorted_columns.expect("sorted list");
        let names: Vec<_> = list
            .iter()
            .map(|c| c.column_name.clone().expect("name").0)
            .collect();
        assert_eq!(
            names,
            ["a:x", "a:x", "b:"].map(|s| Bytes::from_static(s.as_bytes()))
        );
        assert_eq!(list[0].cell.as_ref().and_then(|c| c.timestamp), Some(20));
    }

    #[test]
    fn empty_rows_are_dropped() {
        let empty = RowResult {
            row: Bytes::from_static(b"r0"),
            cells: vec![],
        };
        let rows = [empty, row()];
        assert_eq!(row_results(&rows, false).len(), 1);
        assert!(tcells(None).is_empty());
        assert_eq!(tcells(Some(&row())).len(), 3);
    }
}
