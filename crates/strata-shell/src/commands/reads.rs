//! Reads: get, scan and count, through Thrift1's row reads and scanners.
//!
//! Thrift1 reads "as of T" (the range [0, T)) and one version unless a single column is read
//! with getVerTs. So TIMERANGE [a, b) reads as of b and keeps cells at or after a, which is
//! exact: the newest n versions in [a, b) are the newest n in [0, b) that are not older than
//! a. VERSIONS > 1 reads each column of each row with getVerTs.

use bytes::Bytes;
use strata_thrift::gen::volo_gen::hbase::{TRowResult, TScan, Text};

use super::args::{arity, columns, string, Options};
use crate::error::{usage, Result};
use crate::format::{self, binary, row_count, two_columns};
use crate::session::Session;
use crate::value::Value;

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
    fn from_options(opts: &mut Options) -> Result<ReadSpec> {
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
    fn upper(&self) -> i64 {
        self.range.map_or(i64::MAX, |(_, to)| to)
    }

    fn keeps(&self, cell: &Cell) -> bool {
        self.range
            .is_none_or(|(from, to)| from <= cell.timestamp && cell.timestamp < to)
    }

    fn thrift_columns(&self) -> Option<Vec<Text>> {
        (!self.columns.is_empty()).then(|| self.columns.iter().map(|c| text(c.clone())).collect())
    }
}

fn text(bytes: Vec<u8>) -> Text {
    Text(Bytes::from(bytes))
}

/// Orders cells as HBase does: by family, then qualifier, then newest first.
fn sort_cells(cells: &mut [Cell]) {
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
fn versions_of(
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
fn finish_row(
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

pub fn get(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 2, usize::MAX)?;
    let (table, row) = (string(args, 0, "table name")?, string(args, 1, "row")?);
    let spec = match &args[2..] {
        [] => ReadSpec {
            versions: 1,
            ..Default::default()
        },
        [h @ Value::Hash(_)] => {
            let mut opts = Options::new("get", h)?;
            let spec = ReadSpec::from_options(&mut opts)?;
            opts.finish()?;
            spec
        }
        rest => {
            let mut cols = Vec::new();
            for v in rest {
                cols.extend(columns(v, "column")?);
            }
            ReadSpec {
                columns: cols,
                versions: 1,
                ..Default::default()
            }
        }
    };
    let cells = read_row(s, &table, &row, &spec)?;
    s.say(format::header("COLUMN", "CELL"))?;
    for c in &cells {
        let detail = format!(
            "timestamp={}, value={}",
            format::timestamp(c.timestamp, s.timestamps),
            binary(&c.value)
        );
        s.say(two_columns(&binary(&c.column), &detail))?;
    }
    s.say(row_count(u64::from(!cells.is_empty())))
}

fn read_row(s: &Session, table: &[u8], row: &[u8], spec: &ReadSpec) -> Result<Vec<Cell>> {
    if spec.filter.is_some() {
        let mut stop = row.to_vec();
        stop.push(0);
        let scan = TScan {
            start_row: Some(text(row.to_vec())),
            stop_row: Some(text(stop)),
            caching: Some(1),
            ..scan_base(spec)
        };
        let rows = collect_scan(s, table, scan, 1)?;
        let cells = rows.into_iter().next().map(|(_, c)| c).unwrap_or_default();
        return finish_row(s, table, row, cells, spec);
    }
    let c = &s.client;
    let results = c.call(
        "get",
        c.hbase().get_row_with_columns_ts(
            Some(text(table.to_vec())),
            Some(text(row.to_vec())),
            spec.thrift_columns(),
            Some(spec.upper()),
            None,
        ),
    )?;
    let cells = results.first().map(|r| row_cells(r).1).unwrap_or_default();
    finish_row(s, table, row, cells, spec)
}

/// The TScan fields every read takes from the spec.
fn scan_base(spec: &ReadSpec) -> TScan {
    TScan {
        columns: spec.thrift_columns(),
        timestamp: Some(spec.upper()),
        filter_string: spec.filter.clone().map(text),
        sort_columns: Some(true),
        ..Default::default()
    }
}

/// Runs a scanner to the end (or `limit` rows), returning raw rows.
fn collect_scan(
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
fn prefix_filter(prefix: &[u8]) -> Vec<u8> {
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
pub fn scan_request(opts: &mut Options) -> Result<(ReadSpec, TScan, Option<usize>)> {
    let mut spec = ReadSpec::from_options(opts)?;
    let start = opts.take_bytes("STARTROW")?;
    let stop = opts.take_bytes("STOPROW")?;
    let prefix = opts.take_bytes("ROWPREFIXFILTER")?;
    let limit = opts
        .take_count("LIMIT")?
        .and_then(|l| usize::try_from(l).ok());
    let reversed = opts.take_bool("REVERSED")?.unwrap_or(false);
    let caching = opts.take_count("CACHE")?;
    if let Some(p) = &prefix {
        // The filter makes the prefix exact in either direction; the bounds make it fast.
        spec.filter = Some(match spec.filter.take() {
            None => prefix_filter(p),
            Some(f) => [b"(".as_slice(), &f, b") AND ", &prefix_filter(p)].concat(),
        });
    }
    let (start, stop) = match (&prefix, reversed) {
        (Some(p), false) => (Some(p.clone()), Some(prefix_end(p))),
        _ => (start, stop),
    };
    let scan = TScan {
        start_row: start.map(text),
        stop_row: stop.map(text),
        // No point fetching more rows per call than the limit.
        caching: Some(
            caching
                .unwrap_or(100)
                .min(limit.map_or(i32::MAX, |l| i32::try_from(l).unwrap_or(i32::MAX))),
        ),
        reversed: reversed.then_some(true),
        ..scan_base(&spec)
    };
    Ok((spec, scan, limit))
}

pub fn scan(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 2)?;
    let table = string(args, 0, "table name")?;
    let mut opts = match args.get(1) {
        Some(h) => Options::new("scan", h)?,
        None => Options::empty("scan"),
    };
    let (spec, scan, limit) = scan_request(&mut opts)?;
    opts.finish()?;
    let style = s.timestamps;
    let mut count = 0usize;
    // The header follows the scanner's opening, so a missing table prints only the error.
    let mut header = false;
    let mut print_header = |s: &Session| -> Result<()> {
        if !header {
            header = true;
            s.say(format::header("ROW", "COLUMN+CELL"))?;
        }
        Ok(())
    };
    for_each_row(s, &table, scan, |row, cells| {
        print_header(s)?;
        let cells = finish_row(s, &table, &row, cells, &spec)?;
        if cells.is_empty() {
            return Ok(true);
        }
        count += 1;
        for c in cells {
            let cell = format::cell(&c.column, c.timestamp, &c.value, style);
            s.say(two_columns(&binary(&row), &cell))?;
        }
        Ok(limit.is_none_or(|l| count < l))
    })?;
    print_header(s)?;
    s.say(row_count(count as u64))
}

pub fn count(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 2)?;
    let table = string(args, 0, "table name")?;
    let mut opts = match args.get(1) {
        Some(h) => Options::new("count", h)?,
        None => Options::empty("count"),
    };
    let interval = opts.take_count("INTERVAL")?.unwrap_or(1000);
    let caching = opts.take_count("CACHE")?.unwrap_or(10);
    opts.finish()?;
    let scan = TScan {
        caching: Some(caching),
        filter_string: Some(text(b"FirstKeyOnlyFilter()".to_vec())),
        ..Default::default()
    };
    let mut n: u64 = 0;
    for_each_row(s, &table, scan, |row, _| {
        n += 1;
        if n % u64::from(interval.unsigned_abs()) == 0 {
            s.say(format!("Current count: {n}, row: {}", binary(&row)))?;
        }
        Ok(true)
    })?;
    s.say(row_count(n))?;
    s.result(format!("=> {n}"));
    Ok(())
}

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
