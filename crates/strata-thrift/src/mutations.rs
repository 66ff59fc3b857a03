//! Thrift Mutations to engine cells.
//!
//! A put writes one column at the call's timestamp. A delete removes every version of a column at
//! or below that timestamp, or of the whole family when the spec has no colon. A put needs a
//! qualifier: a put to a bare family is rejected.

use bytes::Bytes;
use strata_engine::{Cell, CellType};
use strata_server::WriteDurability;

use crate::columns::ColumnSpec;
use crate::failure::{CallResult, Failure};
use crate::gen::volo_gen::hbase::Mutation;

/// The cells of a batch, puts and deletes kept apart because HBase applies them as two steps.
#[derive(Debug, Default)]
pub struct Cells {
    pub puts: Vec<Cell>,
    pub deletes: Vec<Cell>,
    /// The weakest durability any mutation asked for (writeToWAL=false means skip the WAL).
    pub skip_wal: bool,
}

impl Cells {
    /// Durability for the write: skipping the WAL if a mutation asked for it, else the
    /// table's. (HBase's Thrift server turns writeToWAL=true into SYNC_WAL, which overrides
    /// the table's DURABILITY; Strata lets the table decide, so an ASYNC_WAL table is
    /// ASYNC_WAL for every client.)
    pub fn durability(&self) -> WriteDurability {
        if self.skip_wal {
            WriteDurability::SkipWal
        } else {
            WriteDurability::UseDefault
        }
    }

    /// Converts and appends the mutations of one row.
    pub fn add_row(
        &mut self,
        row: &Bytes,
        mutations: &[Mutation],
        timestamp: i64,
    ) -> CallResult<()> {
        for m in mutations {
            let column = m.column.clone().map(|t| t.0).unwrap_or_default();
            if !m.write_to_wal.unwrap_or(true) {
                self.skip_wal = true;
            }
            let spec = ColumnSpec::parse(&column);
            if m.is_delete.unwrap_or(false) {
                let cell = delete_column(row, &column, timestamp);
                self.deletes.push(cell);
            } else {
                match spec {
                    ColumnSpec::Family(family) => {
                        return Err(Failure::Internal(format!(
                            "a put needs a column qualifier: {:?} names only the family {:?} \
                             (write \"{}:\" for the empty qualifier)",
                            String::from_utf8_lossy(&column),
                            String::from_utf8_lossy(&family),
                            String::from_utf8_lossy(&family),
                        )));
                    }
                    ColumnSpec::Column { family, qualifier } => {
                        let value = m.value.clone().map(|t| t.0).unwrap_or_default();
                        self.puts
                            .push(Cell::put(row.clone(), family, qualifier, timestamp, value));
                    }
                }
            }
        }
        Ok(())
    }
}

/// A delete of the whole row at or below `timestamp`: one family marker per family.
pub fn delete_row(row: &Bytes, families: &[Vec<u8>], timestamp: i64) -> Vec<Cell> {
    families
        .iter()
        .map(|f| {
            Cell::delete(
                row.clone(),
                Bytes::copy_from_slice(f),
                Bytes::new(),
                timestamp,
                CellType::DeleteFamily,
            )
        })
        .collect()
}

/// A delete of one column spec at or below `timestamp`.
pub fn delete_column(row: &Bytes, column: &Bytes, timestamp: i64) -> Cell {
    match ColumnSpec::parse(column) {
        ColumnSpec::Family(family) => Cell::delete(
            row.clone(),
            family,
            Bytes::new(),
            timestamp,
            CellType::DeleteFamily,
        ),
        ColumnSpec::Column { family, qualifier } => Cell::delete(
            row.clone(),
            family,
            qualifier,
            timestamp,
            CellType::DeleteColumn,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::volo_gen::hbase::Text;

    fn m(column: &str, value: Option<&str>, delete: bool) -> Mutation {
        Mutation {
            is_delete: Some(delete),
            column: Some(Text(Bytes::copy_from_slice(column.as_bytes()))),
            value: value.map(|v| Text(Bytes::copy_from_slice(v.as_bytes()))),
            write_to_wal: Some(true),
        }
    }

    #[test]
    fn puts_and_deletes_are_split() {
        let row = Bytes::from_static(b"r");
        let mut cells = Cells::default();
        cells
            .add_row(
                &row,
                &[
                    m("cf:a", None, true),
                    m("cf:q", Some("v"), false),
                    m("cf", None, true),
                    m("cf:", Some("e"), false),
                ],
                42,
            )
            .expect("valid");
        assert_eq!(cells.puts.len(), 2);
        assert_eq!(cells.puts[0].qualifier, "q");
        assert_eq!(cells.puts[0].timestamp, 42);
        assert_eq!(cells.puts[1].qualifier, "");
        assert_eq!(cells.deletes[0].cell_type, CellType::DeleteColumn);
        assert_eq!(cells.deletes[1].cell_type, CellType::DeleteFamily);
        assert_eq!(cells.durability(), WriteDurability::UseDefault);
    }

    #[test]
    fn put_to_a_bare_family_is_illegal() {
        let mut cells = Cells::default();
        let r = cells.add_row(&Bytes::from_static(b"r"), &[m("cf", Some("v"), false)], 1);
        assert!(matches!(r, Err(Failure::Internal(_))));
    }

    #[test]
    fn write_to_wal_false_skips_the_wal() {
        let mut cells = Cells::default();
        let mut mutation = m("cf:q", Some("v"), false);
        mutation.write_to_wal = Some(false);
        cells
            .add_row(&Bytes::from_static(b"r"), &[mutation], 1)
            .expect("valid");
        assert_eq!(cells.durability(), WriteDurability::SkipWal);
    }

    #[test]
    fn row_and_column_deletes() {
        let row = Bytes::from_static(b"r");
        let cells = delete_row(&row, &[b"a".to_vec(), b"b".to_vec()], 9);
        assert_eq!(cells.len(), 2);
        assert!(cells.iter().all(|c| c.cell_type == CellType::DeleteFamily));
        let c = delete_column(&row, &Bytes::from_static(b"a:q"), 9);
        assert_eq!(
            (c.cell_type, c.qualifier.as_ref()),
            (CellType::DeleteColumn, &b"q"[..])
        );
    }
}
