//! What reads return and how they run over Thrift1: cells, read specs, scanners.
//!
//! Thrift1 reads "as of T" (the range [0, T)) and one version unless a single column is read
//! with getVerTs. So TIMERANGE [a, b) reads as of b and keeps cells at or after a, which is
//! exact: the newest n versions in [a, b) are the newest n in [0, b) that are not older than
//! a. VERSIONS > 1 reads each column of each row with getVerTs.
use bytes::Bytes;
use strata_thrift::gen::volo_gen::hbase::{TRowResult, TScan, Text};

use super::args::Options;
use crate::error::{usage, Result};
use crate::session::Session;

/// One cell as printed.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub column: Vec<u8>,
    pub timestamp: i64,
    pub value: Vec<u8>,
}

/// What a get or scan reads of each row.
#[derive(Debug, Default)]
pub struct ReadSpec {
    pub columns: Vec<Vec<u8>>,
    /// Keep cells with `from <= ts < to`.
    pub range: Option<(i64, i64)>,
    pub versions: i32,
    pub filter: Option<Vec<u8>>,
}

impl ReadSpec {
    pub fn from_options(opts: &mut Options) -> Result<ReadSpec> {
        let mut spec = ReadSpec {
            versions: opts.take_count("VERSIONS")?.unwrap_or(1),
            filter: opts.take_bytes("FILTER")?,
            ..Default::default()
        };
        if let Some(c) = opts.take_columns("COLUMNS")? {
            spec.columns = c;
        }
        if let Some(c) = opts.take_columns("COLUMN")? {
            spec.columns.extend(c);
        }
        let exact = opts.take_int("TIMESTAMP")?;
        let range = opts.take_time_range("TIMERANGE")?;
        spec.range = match (exact, range) {
            (Some(_), Some(_)) => return Err(usage("give TIMESTAMP or TIMERANGE, not both")),
            (Some(ts), None) if ts < 0 => return Err(usage("TIMESTAMP must not be negative")),
            (Some(ts), None) => Some((ts, ts.saturating_add(1))),
            (None, r) => r,
        };
        if spec.versions > 1 && spec.filter.is_some() {
            return Err(usage(
                "VERSIONS above 1 cannot be combined with FILTER over Thrift1",
            ));
        }
        Ok(spec)
    }

    /// The "as of" timestamp sent to the server.
    pub fn upper(&self) -> i64 {
        self.range.map_or(i64::MAX, |(_, to)| to)
    }

    pub fn keeps(&self, cell: &Cell) -> bool {
        self.range
            .is_none_or(|(from, to)| from <= cell.timestamp && cell.timestamp < to)
    }

    pub fn thrift_columns(&self) -> Option<Vec<Text>> {
        (!self.columns.is_empty()).then(|| self.columns.iter().map(|c| text(c.clone())).collect())
    }
}

pub fn text(bytes: Vec<u8>) -> Text {
    Text(Bytes::from(bytes))
}

/// Orders cells as HBase does: by family, then qualifier, then newest first.
pub fn sort_cells(cells: &mut [Cell]) {
    let key = |c: &Cell| {
        let split = c
            .column
            .iter()
            .position(|&b| b == b':')
            .unwrap_or(c.column.len());
        (
            c.column[..split].to_vec(),
            c.column[split..].to_vec(),
            -c.timestamp,
        )
    };
    cells.sort_by_key(key);
}

/// The row key and cells of a Thrift row result.
pub fn row_cells(r: &TRowResult) -> (Vec<u8>, Vec<Cell>) {
    let row = r.row.as_ref().map(|t| t.0.to_vec()).unwrap_or_default();
    let make = |name: &Text, cell: &strata_thrift::gen::volo_gen::hbase::TCell| Cell {
        column: name.0.to_vec(),
        timestamp: cell.timestamp.unwrap_or(0),
        value: cell
            .value
            .as_ref()
            .map(|v| v.0.to_vec())
            .unwrap_or_default(),
    };
    let mut cells: Vec<Cell> = match (&r.sorted_columns, &r.columns) {
        (Some(sorted), _) => sorted
            .iter()
            .filter_map(|c| Some(make(c.column_name.as_ref()?, c.cell.as_ref()?)))
            .collect(),
        (None, Some(map)) => map.iter().map(|(k, v)| make(k, v)).collect(),
        (None, None) => Vec::new(),
    };
    sort_cells(&mut cells);
    (row, cells)
}

/// Every version `spec` asks for of the given columns of one row.
pub fn versions_of(
    s: &Session,
    table: &[u8],
    row: &[u8],
    cols: &[Vec<u8>],
    spec: &ReadSpec,
) -> Result<Vec<Cell>> {
    let c = &s.client;
    let mut out = Vec::new();
    for col in cols {
        let cells = c.call(
            "get",
            c.hbase().get_ver_ts(
                Some(text(table.to_vec())),
                Some(text(row.to_vec())),
                Some(text(col.clone())),
                Some(spec.upper()),
                Some(spec.versions),
                None,
            ),
        )?;
        out.extend(cells.into_iter().map(|cell| Cell {
            column: col.clone(),
            timestamp: cell.timestamp.unwrap_or(0),
            value: cell.value.map(|v| v.0.to_vec()).unwrap_or_default(),
        }));
    }
    Ok(out)
}

/// Keeps the cells in the spec's range; with VERSIONS > 1, re-reads each column's versions.
pub fn finish_row(
    s: &Session,
    table: &[u8],
    row: &[u8],
    cells: Vec<Cell>,
    spec: &ReadSpec,
) -> Result<Vec<Cell>> {
    let mut cells = if spec.versions > 1 {
        let cols: Vec<Vec<u8>> = cells.into_iter().map(|c| c.column).collect();
        versions_of(s, table, row, &cols, spec)?
    } else {
        cells
    };
    cells.retain(|c| spec.keeps(c));
    sort_cells(&mut cells);
    Ok(cells)
}

pub fn scan_base(spec: &ReadSpec) -> TScan {
    TScan {
        columns: spec.thrift_columns(),
        timestamp: Some(spec.upper()),
        filter_string: spec.filter.clone().map(text),
        sort_columns: Some(true),
        ..Default::default()
    }
}

/// Runs a scanner to the end (or `limit` rows), returning raw rows.
pub fn collect_scan(
    s: &Session,
    table: &[u8],
    scan: TScan,
    limit: usize,
) -> Result<Vec<(Vec<u8>, Vec<Cell>)>> {
    let mut rows = Vec::new();
    for_each_row(s, table, scan, |row, cells| {
        rows.push((row, cells));
        Ok(rows.len() < limit)
    })?;
    Ok(rows)
}

/// Calls `f` on each row of a scanner until it returns false; always closes the scanner.
pub fn for_each_row(
    s: &Session,
    table: &[u8],
    scan: TScan,
    mut f: impl FnMut(Vec<u8>, Vec<Cell>) -> Result<bool>,
) -> Result<()> {
    let batch = scan.caching.unwrap_or(100).max(1);
    let c = &s.client;
    let id = c.call(
        "scan",
        c.hbase()
            .scanner_open_with_scan(Some(text(table.to_vec())), Some(scan), None),
    )?;
    let outcome = (|| {
        let id = &id;
        loop {
            let rows = c.call(
                "scan",
                c.hbase().scanner_get_list(Some(id.clone()), Some(batch)),
            )?;
            if rows.is_empty() {
                return Ok(());
            }
            for r in &rows {
                let (row, cells) = row_cells(r);
                if !f(row, cells)? {
                    return Ok(());
                }
            }
        }
    })();
    let closed = c.call("scan", c.hbase().scanner_close(Some(id)));
    outcome.and(closed)
}

/// The first key after every key starting with `prefix` (empty: no such key).
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    Vec::new()
}

/// `PrefixFilter('...')` with quotes doubled, as the filter language wants.
pub fn prefix_filter(prefix: &[u8]) -> Vec<u8> {
    let mut f = b"PrefixFilter('".to_vec();
    for &b in prefix {
        f.push(b);
        if b == b'\'' {
            f.push(b'\'');
        }
    }
    f.extend_from_slice(b"')");
    f
}

/// A scan's request and row limit from its options.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_ends_and_filters() {
        assert_eq!(prefix_end(b"ab"), b"ac");
        assert_eq!(prefix_end(b"a\xff"), b"b");
        assert_eq!(prefix_end(b"\xff\xff"), b"");
        assert_eq!(prefix_filter(b"it's"), b"PrefixFilter('it''s')");
    }

    #[test]
    fn time_ranges_keep_only_their_cells() {
        let spec = ReadSpec {
            range: Some((10, 20)),
            versions: 1,
            ..Default::default()
        };
        let cell = |ts| Cell {
            column: b"f:q".to_vec(),
            timestamp: ts,
            value: vec![],
        };
        assert!(!spec.keeps(&cell(9)));
        assert!(spec.keeps(&cell(10)));
        assert!(spec.keeps(&cell(19)));
        assert!(!spec.keeps(&cell(20)));
        assert_eq!(spec.upper(), 20);
    }

    #[test]
    fn cells_sort_by_family_then_qualifier_then_newest() {
        let cell = |c: &str, ts| Cell {
            column: c.as_bytes().to_vec(),
            timestamp: ts,
            value: vec![],
        };
        let mut cells = vec![
            cell("a0:x", 1),
            cell("a:y", 1),
            cell("a:x", 1),
            cell("a:x", 5),
        ];
        sort_cells(&mut cells);
        let order: Vec<(String, i64)> = cells
            .iter()
            .map(|c| (String::from_utf8_lossy(&c.column).into_owned(), c.timestamp))
            .collect();
        assert_eq!(
            order,
            [
                ("a:x".into(), 5),
                ("a:x".into(), 1),
                ("a:y".into(), 1),
                ("a0:x".into(), 1)
            ]
        );
    }
}
