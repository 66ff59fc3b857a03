//! A one-pass row stream over a table, region by region, for callers that consume the rows
//! as they come (a gRPC ReadRows stream). Unlike `open_scanner` it is not registered with a
//! lease: its owner drops it when done, so a slow reader is never cut off by an expiry.

mod chunk;

pub(crate) use chunk::scan_chunk_here;

use std::collections::VecDeque;
use std::sync::Arc;

use strata_engine::{RowResult, Scan};

use crate::directory::TableDirectory;
use crate::error::Result;
use crate::get_scan;
use crate::names::TableName;
use crate::remote::Origin;
use crate::serving::{scan_plan, RegionRows, RegionSource};
use crate::table::{OpenRegion, TableState};

/// Rows of one `Scan`, in scan order, read from each region in turn.
pub struct RowStream {
    scan: Scan,
    pending: VecDeque<RegionSource>,
    current: Option<RegionRows>,
}

impl RowStream {
    /// The rows of `scan` from `regions` in key order (reversed for a reversed scan).
    fn new(scan: Scan, mut regions: VecDeque<RegionSource>) -> RowStream {
        if scan.reversed {
            regions = regions.into_iter().rev().collect();
        }
        RowStream {
            scan,
            pending: regions,
            current: None,
        }
    }

    /// The next row, or `None` at the end of the scan.
    pub fn next_row(&mut self) -> Result<Option<RowResult>> {
        loop {
            if let Some(scanner) = &mut self.current {
                if let Some(row) = scanner.next_row()? {
                    return Ok(Some(row));
                }
            }
            let Some(region) = self.pending.pop_front() else {
                return Ok(None);
            };
            // A region holds only its own rows, so the scan's bounds apply unchanged.
            self.current = Some(region.scan(&self.scan)?);
        }
    }
}

impl RowStream {
    /// Streams the rows of `scan` from `directory` (its `limit` is applied per region;
    /// callers that filter rows count them themselves). Only the regions the scan's row
    /// range touches are read.
    pub fn open(
        directory: &Arc<TableDirectory>,
        table: &TableName,
        mut scan: Scan,
    ) -> Result<RowStream> {
        get_scan::as_forward_if_get(&mut scan);
        let state = scannable(directory, table, &scan)?;
        let (low, high) = if scan.reversed {
            (&scan.stop_row, &scan.start_row)
        } else {
            (&scan.start_row, &scan.stop_row)
        };
        let wanted = |r: &OpenRegion| overlaps(r, low, high, scan.reversed);
        let pending = scan_plan(directory, &state, Origin::Client, wanted)?;
        Ok(RowStream::new(scan, pending))
    }

    /// The rows of `scan` in the regions here overlapping `[start, end)` (empty: open), for
    /// a peer's chunk (see `remote/`): any such region served elsewhere refuses the read.
    fn open_here(
        directory: &Arc<TableDirectory>,
        table: &TableName,
        scan: Scan,
        start: &[u8],
        end: &[u8],
    ) -> Result<RowStream> {
        let state = scannable(directory, table, &scan)?;
        let wanted = |r: &OpenRegion| overlaps(r, start, end, false);
        let pending = scan_plan(directory, &state, Origin::Peer, wanted)?;
        Ok(RowStream::new(scan, pending))
    }
}

/// The table's state if `scan` may read it: enabled, and every family it names exists.
fn scannable(
    directory: &TableDirectory,
    table: &TableName,
    scan: &Scan,
) -> Result<Arc<TableState>> {
    directory.table_checked(table, |state| {
        state.check_enabled()?;
        scan.columns.keys().try_for_each(|f| state.check_family(f))
    })
}

/// True if region `r` may hold rows between `low` and `high` (empty: unbounded). `high` is
/// exclusive for a forward scan and inclusive for a reversed one; being generous by one
/// region costs only an empty region scan.
fn overlaps(r: &OpenRegion, low: &[u8], high: &[u8], reversed: bool) -> bool {
    let start = r.entry.start_key.as_ref();
    let end = r.entry.end_key.as_ref();
    let below_high = high.is_empty() || start < high || (reversed && start == high);
    let above_low = low.is_empty() || end.is_empty() || end > low;
    below_high && above_low
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use strata_engine::{Cell, Durability, FamilyOptions};

    use super::*;
    use crate::{Service, ServiceOptions};

    fn keys(stream: &mut RowStream) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(row) = stream.next_row().unwrap() {
            out.push(String::from_utf8(row.row.to_vec()).unwrap());
        }
        out
    }

    #[test]
    fn streams_across_regions_in_both_directions() {
        let dir = tempfile::tempdir().unwrap();
        let svc = Service::open(ServiceOptions::new(dir.path())).unwrap();
        let table = TableName::parse("t").unwrap();
        let splits = vec![Bytes::from_static(b"c"), Bytes::from_static(b"f")];
        svc.admin()
            .create_table(&table, vec![FamilyOptions::new("cf")], splits)
            .unwrap();
        let cells = ["a", "b", "c", "d", "f", "g"]
            .iter()
            .map(|r| Cell::put(r.to_string(), "cf", "q", 1, "v"))
            .collect();
        svc.rows()
            .mutate(&table, cells, Durability::SyncWal)
            .unwrap();
        let all = svc.scanners().scan_rows(&table, Scan::new()).unwrap();
        assert_eq!(keys(&mut { all }), vec!["a", "b", "c", "d", "f", "g"]);
        let mut part = svc
            .scanners()
            .scan_rows(&table, Scan::new().range("b", "f"))
            .unwrap();
        assert_eq!(keys(&mut part), vec!["b", "c", "d"]);
        assert_eq!(part.pending.len(), 0);
        let reversed = Scan::new().range("f", "b").reversed(true);
        let mut back = svc.scanners().scan_rows(&table, reversed).unwrap();
        assert_eq!(keys(&mut back), vec!["f", "d", "c"]);
        let only_first = svc
            .scanners()
            .scan_rows(&table, Scan::new().range("a", "b"))
            .unwrap();
        assert_eq!(
            only_first.pending.len(),
            1,
            "regions after the range are skipped"
        );
    }

    /// Equal start and stop rows read that row in both directions, through the stream and
    /// through a registered scanner (every front end uses one of the two).
    #[test]
    fn equal_bounds_read_the_one_row_in_both_directions() {
        let dir = tempfile::tempdir().unwrap();
        let svc = Service::open(ServiceOptions::new(dir.path())).unwrap();
        let table = TableName::parse("t").unwrap();
        let splits = vec![Bytes::from_static(b"c")];
        svc.admin()
            .create_table(&table, vec![FamilyOptions::new("cf")], splits)
            .unwrap();
        let cells = ["b", "c", "c0", "d"]
            .iter()
            .map(|r| Cell::put(r.to_string(), "cf", "q", 1, "v"))
            .collect();
        svc.rows()
            .mutate(&table, cells, Durability::SyncWal)
            .unwrap();
        for reversed in [false, true] {
            for (row, expected) in [("c", vec!["c"]), ("b", vec!["b"]), ("bb", vec![])] {
                let scan = Scan::new().range(row, row).reversed(reversed);
                let mut stream = svc.scanners().scan_rows(&table, scan.clone()).unwrap();
                assert_eq!(keys(&mut stream), expected, "stream {row} {reversed}");
                let id = svc.scanners().open_scanner(&table, scan).unwrap();
                let rows: Vec<_> = svc.scanners().scanner_next(id, 10).unwrap();
                let got: Vec<_> = rows.iter().map(|r| r.row.clone()).collect();
                let want: Vec<_> = expected
                    .iter()
                    .map(|r| Bytes::from(r.to_string()))
                    .collect();
                assert_eq!(got, want, "scanner {row} {reversed}");
            }
        }
    }
}
