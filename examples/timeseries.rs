//! Time-series ingestion with salted row keys.
//!
//! Row key: `salt (1 byte) | series id | 0x00 | reversed timestamp (8 bytes, big-endian)`,
//! where `salt = hash(series id) % SALTS`. Salting spreads the writes of consecutive series
//! over `SALTS` regions (the table is pre-split at each salt byte) instead of one hot
//! region; the reversed timestamp puts each series' newest points first. Points are written
//! in batches; each cell's HBase timestamp is the point's time, so a query's time range is
//! a plain scan time range.
//!
//! A query names a series id or a prefix of ids (a whole metric). A reader that asks for a
//! prefix cannot know which salts hold the matching series, so it fans out one scan per
//! salt bucket and merges the results by time.
//!
//! Run: `cargo run -p strata-examples --example timeseries [DATA_DIR]`

use std::collections::BTreeSet;

use strata_db::{Db, Family, Mutation, Put, Scan, Table, TableBuilder};
use strata_examples::{ensure, fresh_table, msg, run, DataDir};

const SALTS: u8 = 8;
const TABLE: &str = "metrics";
const HOSTS: usize = 6;
const POINTS_PER_SERIES: i64 = 400;
const START_MS: i64 = 1_700_000_000_000;
const STEP_MS: i64 = 15_000;
const BATCH: usize = 500;

/// One measurement: (series id, time in ms, value).
type Point = (String, i64, f64);

/// A stable hash (FNV-1a), so the salt of a series never changes between runs or builds.
fn salt_of(series: &str) -> u8 {
    let hash = series.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash % u64::from(SALTS)) as u8
}

fn row_key(series: &str, time_ms: i64) -> Vec<u8> {
    let mut key = vec![salt_of(series)];
    key.extend_from_slice(series.as_bytes());
    key.push(0);
    key.extend_from_slice(&(u64::MAX - time_ms as u64).to_be_bytes());
    key
}

/// The series id and time encoded in a row key.
fn parse_key(key: &[u8]) -> Option<(String, i64)> {
    let body = key.get(1..)?;
    let separator = body.iter().position(|b| *b == 0)?;
    let series = String::from_utf8(body[..separator].to_vec()).ok()?;
    let reversed: [u8; 8] = body.get(separator + 1..)?.try_into().ok()?;
    Some((series, (u64::MAX - u64::from_be_bytes(reversed)) as i64))
}

fn generate() -> Vec<Point> {
    let mut points = Vec::new();
    for metric in ["cpu", "mem"] {
        for host in 0..HOSTS {
            let series = format!("{metric}.host-{host:02}");
            for i in 0..POINTS_PER_SERIES {
                let value = (host as f64) * 100.0 + (i % 37) as f64 / 4.0;
                points.push((series.clone(), START_MS + i * STEP_MS, value));
            }
        }
    }
    points
}

fn ingest(table: &Table, points: &[Point]) -> Result<(), String> {
    for chunk in points.chunks(BATCH) {
        let batch: Vec<Mutation> = chunk
            .iter()
            .map(|(series, time, value)| {
                let put = Put::new(row_key(series, *time));
                put.add_at("d", "v", *time, value.to_be_bytes().to_vec())
                    .into()
            })
            .collect();
        table.batch(batch).map_err(msg("batch put"))?;
    }
    Ok(())
}

/// Points of every series whose id starts with `series_prefix`, with `from <= time < to`,
/// newest first: one scan per salt bucket, merged.
fn query(table: &Table, series_prefix: &str, from: i64, to: i64) -> Result<Vec<Point>, String> {
    let mut merged = Vec::new();
    for salt in 0..SALTS {
        let mut prefix = vec![salt];
        prefix.extend_from_slice(series_prefix.as_bytes());
        let scan = Scan::new()
            .prefix(prefix)
            .column("d", "v")
            .time_range(from, to);
        for row in table.scan(scan).map_err(msg("scan"))? {
            let row = row.map_err(msg("scan"))?;
            let (series, time) = parse_key(row.key()).ok_or("a row key that does not parse")?;
            let bytes: [u8; 8] = row
                .value("d", "v")
                .and_then(|v| v.try_into().ok())
                .ok_or("a value that is not 8 bytes")?;
            merged.push((series, time, f64::from_be_bytes(bytes)));
        }
    }
    merged.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(merged)
}

/// What `query` must return, computed from the points written.
fn expected(points: &[Point], series_prefix: &str, from: i64, to: i64) -> Vec<Point> {
    let mut want: Vec<Point> = points
        .iter()
        .filter(|(s, t, _)| s.starts_with(series_prefix) && (from..to).contains(t))
        .cloned()
        .collect();
    want.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    want
}

fn check_query(
    table: &Table,
    points: &[Point],
    prefix: &str,
    from: i64,
    to: i64,
) -> Result<usize, String> {
    let got = query(table, prefix, from, to)?;
    let want = expected(points, prefix, from, to);
    ensure(!want.is_empty(), || {
        format!("query {prefix:?} expects no points: a useless check")
    })?;
    ensure(got == want, || {
        format!(
            "query {prefix:?} [{from}, {to}) returned {} points, expected {}",
            got.len(),
            want.len()
        )
    })?;
    Ok(got.len())
}

fn main() {
    run("timeseries", || {
        let dir = DataDir::from_args()?;
        let db = Db::open(dir.path()).map_err(msg("open"))?;
        let splits: Vec<Vec<u8>> = (1..SALTS).map(|s| vec![s]).collect();
        let builder = TableBuilder::new(TABLE)
            .family(Family::new("d"))
            .split_keys(splits);
        let table = fresh_table(&db, builder, TABLE)?;
        let points = generate();
        ingest(&table, &points)?;

        let regions = db.table_regions(TABLE).map_err(msg("regions"))?;
        ensure(regions.len() == usize::from(SALTS), || {
            format!("{} regions", regions.len())
        })?;
        let salts: BTreeSet<u8> = points.iter().map(|(s, _, _)| salt_of(s)).collect();
        ensure(salts.len() > 1, || "every series hashed to one salt".into())?;

        let window = (START_MS + 100 * STEP_MS, START_MS + 180 * STEP_MS);
        let one = check_query(&table, &points, "cpu.host-03", window.0, window.1)?;
        let metric = check_query(&table, &points, "mem.", window.0, window.1)?;
        let all = check_query(&table, &points, "", 0, i64::MAX)?;
        ensure(all == points.len(), || {
            format!("{all} of {} points read back", points.len())
        })?;
        println!(
            "timeseries: {} points in {} series over {} salt buckets ({} used); \
             one series: {one} points, one metric: {metric} points in the window",
            points.len(),
            2 * HOSTS,
            SALTS,
            salts.len()
        );
        db.close().map_err(msg("close"))
    });
}
