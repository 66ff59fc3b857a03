//! A general read-modify-write of one row: read under the row lock, compute the cells to
//! write from what was read, write them atomically and durably, then unlock. Bigtable's
//! CheckAndMutateRow (any predicate filter), ReadModifyWriteRow and exact deletes are built
//! on it; HBase's single-column check-and-mutate, increment and append are special cases.

use strata_engine::{Cell, Get, RowResult};

use super::locked_row::RowWrite;
use super::RowOperations;
use crate::durability::WriteDurability;
use crate::error::Result;
use crate::limits::Dialect;
use crate::names::TableName;

impl RowOperations {
    /// Reads `read` (one row) under that row's lock and calls `compute` with the row (`None`
    /// when nothing in it is visible) and the server's time in milliseconds. The cells it
    /// returns (all in `read.row`; none: nothing is written) are written in one atomic
    /// mutation with the table's durability under the size limits of `dialect` (see
    /// [`RowOperations::with_row`]); its second value is returned once that write is durable.
    /// `compute` may run more than once: when a split or merge seals the region between the
    /// read and the write, nothing was written and the whole step is retried on the new
    /// region.
    pub(crate) fn read_modify_write_row<T>(
        &self,
        dialect: Dialect,
        table: &TableName,
        read: &Get,
        mut compute: impl FnMut(Option<RowResult>, i64) -> Result<(Vec<Cell>, T)>,
    ) -> Result<T> {
        let write = RowWrite {
            dialect,
            durability: WriteDurability::UseDefault,
            ..RowWrite::hbase()
        };
        let families = read.columns.keys().map(|f| f.as_ref());
        self.with_row(table, &read.row, families, write, |row| {
            let current = row.get(read)?;
            compute(current, row.server_timestamp(i64::MIN))
        })
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // these tests race real threads in real time
mod tests {
    use std::sync::Arc;

    use bytes::Bytes;
    use strata_engine::{FamilyOptions, LATEST_TIMESTAMP};

    use super::*;
    use crate::ServiceError;
    use crate::{Service, ServiceOptions};

    fn open(dir: &std::path::Path) -> (Arc<Service>, TableName) {
        let svc = Service::open(ServiceOptions::new(dir)).unwrap();
        let table = TableName::parse("t").unwrap();
        svc.admin()
            .create_table(&table, vec![FamilyOptions::new("cf")], vec![])
            .unwrap();
        (svc, table)
    }

    fn value_of(svc: &Service, table: &TableName, row: &str) -> Option<Bytes> {
        svc.rows()
            .get(table, &Get::new(row.to_string()))
            .unwrap()
            .map(|r| r.cells[0].value.clone())
    }

    #[test]
    fn computes_from_the_row_and_writes_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let (svc, table) = open(dir.path());
        let read = Get::new("r").versions(u32::MAX);
        let seen = svc
            .rows()
            .read_modify_write_row(&table, &read, |row, now| {
                assert!(now > 0);
                let cell = Cell::put("r", "cf", "q", LATEST_TIMESTAMP, "one");
                Ok((vec![cell], row.is_none()))
            })
            .unwrap();
        assert!(seen, "the first call sees no row");
        let previous = svc
            .rows()
            .read_modify_write_row(&table, &read, |row, _| {
                let old = row.unwrap().cells[0].value.clone();
                let mut next = old.to_vec();
                next.extend_from_slice(b"+two");
                Ok((vec![Cell::put("r", "cf", "q", LATEST_TIMESTAMP, next)], old))
            })
            .unwrap();
        assert_eq!(previous, Bytes::from_static(b"one"));
        assert_eq!(
            value_of(&svc, &table, "r"),
            Some(Bytes::from_static(b"one+two"))
        );
    }

    #[test]
    fn nothing_is_written_when_compute_fails_or_returns_no_cells() {
        let dir = tempfile::tempdir().unwrap();
        let (svc, table) = open(dir.path());
        let read = Get::new("r");
        let err =
            svc.rows()
                .read_modify_write_row(&table, &read, |_, _| -> Result<(Vec<Cell>, ())> {
                    Err(ServiceError::InvalidArgument("no".into()))
                });
        assert!(matches!(err, Err(ServiceError::InvalidArgument(_))));
        svc.rows()
            .read_modify_write_row(&table, &read, |_, _| Ok((Vec::new(), ())))
            .unwrap();
        assert_eq!(value_of(&svc, &table, "r"), None);
    }

    #[test]
    fn cells_outside_the_row_or_in_unknown_families_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (svc, table) = open(dir.path());
        let read = Get::new("r");
        let other_row = svc.rows().read_modify_write_row(&table, &read, |_, _| {
            Ok((vec![Cell::put("x", "cf", "q", 1, "v")], ()))
        });
        assert!(matches!(other_row, Err(ServiceError::InvalidArgument(_))));
        let bad_family = svc.rows().read_modify_write_row(&table, &read, |_, _| {
            Ok((vec![Cell::put("r", "nope", "q", 1, "v")], ()))
        });
        assert!(matches!(
            bad_family,
            Err(ServiceError::FamilyNotFound { .. })
        ));
        assert_eq!(value_of(&svc, &table, "r"), None);
        assert_eq!(value_of(&svc, &table, "x"), None);
    }

    #[test]
    fn concurrent_read_modify_writes_of_one_row_never_lose_an_update() {
        let dir = tempfile::tempdir().unwrap();
        let (svc, table) = open(dir.path());
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let svc = Arc::clone(&svc);
                let table = table.clone();
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        svc.rows()
                            .read_modify_write_row(&table, &Get::new("r"), |row, _| {
                                let n = row.map_or(0, |r| r.cells[0].value.len());
                                let value = vec![b'x'; n + 1];
                                Ok((vec![Cell::put("r", "cf", "q", LATEST_TIMESTAMP, value)], ()))
                            })
                            .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(value_of(&svc, &table, "r").unwrap().len(), 200);
    }
}
