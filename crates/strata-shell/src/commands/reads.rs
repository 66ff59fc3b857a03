//! Reads: get, scan and count (how they map onto Thrift1 is in `read_spec`).

use strata_thrift::gen::volo_gen::hbase::TScan;

use super::args::{arity, columns, string, Options};
use super::read_spec::{
    collect_scan, finish_row, for_each_row, prefix_end, prefix_filter, row_cells, scan_base, text,
    Cell, ReadSpec,
};
use crate::error::Result;
use crate::format::{self, binary, row_count, two_columns};
use crate::session::Session;
use crate::value::Value;

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
