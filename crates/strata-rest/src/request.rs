//! Parses a request's path and query string into what it addresses, the way HBase's REST
//! server does (its `RowSpec`): pure functions over bytes, so they can be tested and fuzzed
//! on their own.
//!
//! Each path segment is split on the raw (still percent-encoded) `/`, then decoded like
//! Java's `URLDecoder`: `%XX` escapes and `+` for a space. So a row key holding `/` is sent
//! as `%2F`, a `,` inside a key as `%2C` and a literal `+` as `%2B`. Unlike HBase, decoded
//! keys are raw bytes, so binary keys (`%FF`) round-trip.

use bytes::Bytes;

/// Why a path or query string is malformed (a 400, or a 404 for an unknown path).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("{0}")]
    BadRequest(String),
    #[error("no resource at this path")]
    NotFound,
}

fn bad(message: impl Into<String>) -> RequestError {
    RequestError::BadRequest(message.into())
}

/// What a request addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `/version` and `/version/rest`.
    Version,
    /// `/version/cluster`.
    ClusterVersion,
    /// `/status/cluster`.
    ClusterStatus,
    /// `/`.
    TableList,
    /// `/<table>/schema`.
    Schema(String),
    /// `/<table>/regions`.
    Regions(String),
    /// `/<table>/exists`.
    Exists(String),
    /// `/namespaces`.
    Namespaces,
    /// `/namespaces/<namespace>`.
    Namespace(String),
    /// `/namespaces/<namespace>/tables`.
    NamespaceTables(String),
    /// `/<table>/scanner`.
    Scanners(String),
    /// `/<table>/scanner/<id>`.
    Scanner { table: String, id: String },
    /// `/<table>/multiget[/<columns>]`.
    MultiGet {
        table: String,
        columns: Vec<ColumnSpec>,
    },
    /// `/<table>/<prefix>*`: a scan of the rows starting with the prefix.
    TableScan { table: String, prefix: Bytes },
    /// `/<table>/<row spec>`.
    Row { table: String, spec: RowSpec },
}

/// A column in a path: a whole family, or one column (a `:` with a qualifier, maybe empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    pub family: Bytes,
    pub qualifier: Option<Bytes>,
}

impl ColumnSpec {
    /// Splits `family[:qualifier]` at the first `:`, as HBase's `CellUtil.parseColumn`.
    pub fn parse(column: &[u8]) -> ColumnSpec {
        match column.iter().position(|&b| b == b':') {
            None => ColumnSpec {
                family: Bytes::copy_from_slice(column),
                qualifier: None,
            },
            Some(i) => ColumnSpec {
                family: Bytes::copy_from_slice(&column[..i]),
                qualifier: Some(Bytes::copy_from_slice(&column[i + 1..])),
            },
        }
    }
}

/// Which timestamps a row spec addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSpec {
    /// No timestamp in the path.
    Any,
    /// `/<ts>`: exactly this timestamp (reads), at or below it (deletes), the put's timestamp.
    At(i64),
    /// `/<start>,<end>`: the half-open range `[start, end)`.
    Range(i64, i64),
}

/// HBase's `RowSpec`: `<row>[,<end row>][/<column>[,<column>...][/<ts>[,<end ts>]]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowSpec {
    /// The row, the first row of a range, or the prefix of a glob.
    pub row: Bytes,
    /// The end (exclusive) of a row range `start,end`.
    pub end_row: Option<Bytes>,
    /// The row ended in `*`: every row starting with `row`.
    pub glob: bool,
    pub columns: Vec<ColumnSpec>,
    pub time: TimeSpec,
    /// From the `v` query parameter; 1 by default.
    pub max_versions: u32,
}

impl RowSpec {
    /// True if it addresses one row (not a range or a glob).
    pub fn is_single_row(&self) -> bool {
        self.end_row.is_none() && !self.glob
    }
}

/// Decodes one URL component like Java's `URLDecoder`: `%XX` escapes and `+` as a space.
pub fn decode_component(raw: &[u8]) -> Result<Vec<u8>, RequestError> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = raw
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| bad("malformed %-escape in the path"))?;
                out.push(hex);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    Ok(out)
}

fn decode_text(raw: &[u8], what: &str) -> Result<String, RequestError> {
    String::from_utf8(decode_component(raw)?).map_err(|_| bad(format!("{what} must be UTF-8")))
}

/// Parses a request path (still percent-encoded, with or without the leading `/`).
pub fn parse_route(path: &str) -> Result<Route, RequestError> {
    let trimmed = path.trim_start_matches('/');
    let mut segments: Vec<&[u8]> = trimmed.as_bytes().split(|&b| b == b'/').collect();
    // A trailing slash adds nothing.
    if segments.last().is_some_and(|s| s.is_empty()) {
        segments.pop();
    }
    let Some((&first, rest)) = segments.split_first() else {
        return Ok(Route::TableList);
    };
    match (first, rest) {
        (b"version", []) | (b"version", [b"rest"]) => return Ok(Route::Version),
        (b"version", [b"cluster"]) => return Ok(Route::ClusterVersion),
        (b"status", [b"cluster"]) => return Ok(Route::ClusterStatus),
        (b"namespaces", []) => return Ok(Route::Namespaces),
        (b"namespaces", [ns]) => return Ok(Route::Namespace(decode_text(ns, "a namespace")?)),
        (b"namespaces", [ns, b"tables"]) => {
            return Ok(Route::NamespaceTables(decode_text(ns, "a namespace")?))
        }
        (b"version" | b"status" | b"namespaces", _) => return Err(RequestError::NotFound),
        _ => {}
    }
    let table = decode_text(first, "a table name")?;
    let Some((&second, tail)) = rest.split_first() else {
        return Err(RequestError::NotFound);
    };
    match (second, tail) {
        (b"schema", []) => Ok(Route::Schema(table)),
        (b"regions", []) => Ok(Route::Regions(table)),
        (b"exists", []) => Ok(Route::Exists(table)),
        (b"scanner", []) => Ok(Route::Scanners(table)),
        (b"scanner", [id]) => Ok(Route::Scanner {
            table,
            id: decode_text(id, "a scanner id")?,
        }),
        (m, _) if m.starts_with(b"multiget") => Ok(Route::MultiGet {
            table,
            columns: parse_multiget_columns(&m[b"multiget".len()..], tail)?,
        }),
        (row, []) if row.ends_with(b"*") && !row.contains(&b',') => {
            let prefix = decode_component(&row[..row.len() - 1])?;
            Ok(Route::TableScan {
                table,
                prefix: Bytes::from(prefix),
            })
        }
        _ => Ok(Route::Row {
            table,
            spec: parse_row_spec(rest)?,
        }),
    }
}

/// The columns after `multiget` (HBase drops every `/` and splits the rest on `,`).
fn parse_multiget_columns(suffix: &[u8], tail: &[&[u8]]) -> Result<Vec<ColumnSpec>, RequestError> {
    let mut joined = suffix.to_vec();
    for part in tail {
        joined.extend_from_slice(part);
    }
    joined
        .split(|&b| b == b',')
        .filter(|c| !c.is_empty())
        .map(|c| Ok(ColumnSpec::parse(&decode_component(c)?)))
        .collect()
}

/// Parses the segments of a row spec (the path after the table).
pub fn parse_row_spec(segments: &[&[u8]]) -> Result<RowSpec, RequestError> {
    let (rows, columns, time) = match segments {
        [rows] => (*rows, None, None),
        [rows, columns] => (*rows, Some(*columns), None),
        [rows, columns, time] => (*rows, Some(*columns), Some(*time)),
        [] => return Err(bad("no row in the path")),
        _ => return Err(bad("too many path segments after the row")),
    };
    let (row, end_row, glob) = parse_rows(rows)?;
    let columns = match columns {
        Some(c) => parse_columns(c)?,
        None => Vec::new(),
    };
    let time = match time {
        Some(t) => parse_time(t)?,
        None => TimeSpec::Any,
    };
    Ok(RowSpec {
        row,
        end_row,
        glob,
        columns,
        time,
        max_versions: 1,
    })
}

/// `<row>`, `<start>,<end>` or `<prefix>*`.
fn parse_rows(raw: &[u8]) -> Result<(Bytes, Option<Bytes>, bool), RequestError> {
    let (start, end) = match raw.iter().position(|&b| b == b',') {
        Some(i) => (
            decode_component(&raw[..i])?,
            Some(decode_component(&raw[i + 1..])?),
        ),
        None => (decode_component(raw)?, None),
    };
    if start.is_empty() {
        return Err(bad("empty row key in the path"));
    }
    if let Some(prefix) = start.strip_suffix(b"*") {
        if end.is_some() {
            return Err(bad("invalid path: start row specified with wildcard"));
        }
        return Ok((Bytes::copy_from_slice(prefix), None, true));
    }
    Ok((Bytes::from(start), end.map(Bytes::from), false))
}

fn parse_columns(raw: &[u8]) -> Result<Vec<ColumnSpec>, RequestError> {
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    raw.split(|&b| b == b',')
        .map(|c| {
            if c.is_empty() {
                return Err(bad("invalid path: empty column"));
            }
            Ok(ColumnSpec::parse(&decode_component(c)?))
        })
        .collect()
}

fn parse_timestamp(raw: &[u8]) -> Result<i64, RequestError> {
    let text = decode_text(raw, "a timestamp")?;
    match text.parse::<i64>() {
        Ok(ts) if ts >= 0 => Ok(ts),
        _ => Err(bad(format!("invalid timestamp {text:?}"))),
    }
}

/// `<ts>` or `<start>,<end>`.
fn parse_time(raw: &[u8]) -> Result<TimeSpec, RequestError> {
    match raw.iter().position(|&b| b == b',') {
        None => Ok(TimeSpec::At(parse_timestamp(raw)?)),
        Some(i) => {
            let start = parse_timestamp(&raw[..i])?;
            let end = parse_timestamp(&raw[i + 1..])?;
            // HBase reads an end of 0 as "no range": only `start` is then the timestamp.
            if end == 0 {
                return Ok(TimeSpec::At(start));
            }
            if end <= start {
                return Err(bad("invalid time range: the end must be after the start"));
            }
            Ok(TimeSpec::Range(start, end))
        }
    }
}

/// A query string's parameters in order, names as text and values as decoded bytes.
pub fn parse_query(query: Option<&str>) -> Result<Vec<(String, Vec<u8>)>, RequestError> {
    let Some(query) = query else {
        return Ok(Vec::new());
    };
    query
        .as_bytes()
        .split(|&b| b == b'&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (name, value) = match pair.iter().position(|&b| b == b'=') {
                Some(i) => (&pair[..i], &pair[i + 1..]),
                None => (pair, &b""[..]),
            };
            Ok((
                decode_text(name, "a parameter name")?,
                decode_component(value)?,
            ))
        })
        .collect()
}

/// The value of the last parameter called `name`, as text.
pub fn query_text(
    params: &[(String, Vec<u8>)],
    name: &str,
) -> Result<Option<String>, RequestError> {
    params
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| {
            String::from_utf8(v.clone()).map_err(|_| bad(format!("parameter {name} must be UTF-8")))
        })
        .transpose()
}

/// The value of the parameter `name` as a number of type `T`.
pub fn query_number<T: std::str::FromStr>(
    params: &[(String, Vec<u8>)],
    name: &str,
) -> Result<Option<T>, RequestError> {
    query_text(params, name)?
        .map(|t| {
            t.trim()
                .parse::<T>()
                .map_err(|_| bad(format!("parameter {name}: {t:?} is not a valid number")))
        })
        .transpose()
}

/// The smallest key greater than every key starting with `prefix` (empty: no upper bound).
pub fn prefix_end(prefix: &[u8]) -> Bytes {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Bytes::from(end);
        }
    }
    Bytes::new()
}
