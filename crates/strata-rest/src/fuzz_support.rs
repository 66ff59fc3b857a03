//! Entry point for the REST fuzz target (`fuzz/fuzz_targets/rest_request.rs`) and its stable
//! corpus replay (`tests/fuzz_corpus_test.rs`): everything the gateway parses from request
//! bytes. Panics only when an invariant breaks; a 400-style error is an acceptable outcome.
//!
//! The first byte picks the parser, the rest is its input:
//!
//! | first byte % 9 | input |
//! | --- | --- |
//! | 0 | a request target `path[?query]` |
//! | 1, 2 | a CellSet body, JSON / XML |
//! | 3, 4 | a Scanner body, JSON / XML (and its filter) |
//! | 5 | a scanner filter (HBase's JSON form or filter-language text) |
//! | 6, 7 | a TableSchema body, JSON / XML |
//! | 8 | an `Accept` / `Content-Type` header value |

use strata_server::TableName;

use crate::format::{self, Format};
use crate::model::cellset::CellSet;
use crate::model::filter::to_filter_language;
use crate::model::scanner::ScannerModel;
use crate::model::schema::TableSchema;
use crate::request::{self, ColumnSpec, Route, RowSpec, TimeSpec};

/// Runs the parser the first byte selects over the rest of `input`.
pub fn rest_request(input: &[u8]) {
    let Some((&selector, body)) = input.split_first() else {
        return;
    };
    match selector % 9 {
        0 => request_target(body),
        1 => cellset(body, Format::Json),
        2 => cellset(body, Format::Xml),
        3 => scanner(body, Format::Json),
        4 => scanner(body, Format::Xml),
        5 => filter(body),
        6 => schema(body, Format::Json),
        7 => schema(body, Format::Xml),
        _ => media_types(body),
    }
}

/// A path and query string. Invariants: a parsed route, written back as a path with every
/// byte of every key %-escaped, parses to the same route; the same for the query string; a
/// row spec's time range is non-empty and its timestamps are not negative.
fn request_target(body: &[u8]) {
    // The server sees the path of a parsed URI, which is text.
    let Ok(target) = std::str::from_utf8(body) else {
        return;
    };
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    if let Ok(route) = request::parse_route(path) {
        check_route(&route);
        let written = write_route(&route);
        match request::parse_route(&written) {
            Ok(again) => assert_eq!(again, route, "{written:?} parses differently"),
            Err(e) => panic!("route {route:?} written as {written:?} does not parse: {e}"),
        }
    }
    if let Ok(params) = request::parse_query(query) {
        let written = write_query(&params);
        let again = request::parse_query(Some(&written));
        assert_eq!(
            again.as_ref(),
            Ok(&params),
            "query {written:?} parses differently"
        );
        let _ = request::query_number::<u32>(&params, "v");
        let _ = request::query_text(&params, "check");
    }
}

fn check_route(route: &Route) {
    let table = match route {
        Route::Row { table, spec } => {
            check_row_spec(spec);
            table
        }
        Route::Schema(table)
        | Route::Regions(table)
        | Route::Exists(table)
        | Route::Scanners(table)
        | Route::Scanner { table, .. }
        | Route::MultiGet { table, .. }
        | Route::TableScan { table, .. } => table,
        _ => return,
    };
    assert!(!table.is_empty(), "a route with an empty table: {route:?}");
    let _ = TableName::parse(table);
}

fn check_row_spec(spec: &RowSpec) {
    assert!(spec.glob || !spec.row.is_empty(), "an empty row: {spec:?}");
    assert!(
        !(spec.glob && spec.end_row.is_some()),
        "a glob range: {spec:?}"
    );
    match spec.time {
        TimeSpec::Any => {}
        TimeSpec::At(ts) => assert!(ts >= 0, "negative timestamp: {spec:?}"),
        TimeSpec::Range(start, end) => {
            assert!(0 <= start && start < end, "empty time range: {spec:?}")
        }
    }
}

/// Every byte as `%XX`: no escaped segment can be mistaken for a keyword (`schema`,
/// `multiget`...) or hold a separator.
fn escape(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("%{b:02X}")).collect()
}

fn write_column(column: &ColumnSpec) -> String {
    match &column.qualifier {
        Some(q) => format!("{}:{}", escape(&column.family), escape(q)),
        None => escape(&column.family),
    }
}

fn write_columns(columns: &[ColumnSpec]) -> String {
    columns
        .iter()
        .map(write_column)
        .collect::<Vec<_>>()
        .join(",")
}

/// Joins segments into a path; a trailing slash keeps a last empty segment (the parser drops
/// one trailing empty segment).
fn path(segments: &[String]) -> String {
    let mut out = format!("/{}", segments.join("/"));
    if segments.last().is_some_and(String::is_empty) {
        out.push('/');
    }
    out
}

fn write_route(route: &Route) -> String {
    let text = |s: &str| escape(s.as_bytes());
    let word = |s: &str| s.to_string();
    let segments = match route {
        Route::Version => vec![word("version")],
        Route::ClusterVersion => vec![word("version"), word("cluster")],
        Route::ClusterStatus => vec![word("status"), word("cluster")],
        Route::TableList => return "/".to_string(),
        Route::Namespaces => vec![word("namespaces")],
        Route::Namespace(ns) => vec![word("namespaces"), text(ns)],
        Route::NamespaceTables(ns) => vec![word("namespaces"), text(ns), word("tables")],
        Route::Schema(t) => vec![text(t), word("schema")],
        Route::Regions(t) => vec![text(t), word("regions")],
        Route::Exists(t) => vec![text(t), word("exists")],
        Route::Scanners(t) => vec![text(t), word("scanner")],
        Route::Scanner { table, id } => vec![text(table), word("scanner"), text(id)],
        Route::MultiGet { table, columns } => {
            vec![text(table), word("multiget"), write_columns(columns)]
        }
        Route::TableScan { table, prefix } => vec![text(table), format!("{}*", escape(prefix))],
        Route::Row { table, spec } => {
            let mut segments = vec![text(table)];
            segments.extend(write_row_spec(spec));
            segments
        }
    };
    path(&segments)
}

/// The segments of a row spec; a glob's `*` is escaped so that a one-segment glob stays a
/// row spec (a raw `*` makes it a table scan).
fn write_row_spec(spec: &RowSpec) -> Vec<String> {
    let rows = match (&spec.end_row, spec.glob) {
        (_, true) => format!("{}%2A", escape(&spec.row)),
        (Some(end), false) => format!("{},{}", escape(&spec.row), escape(end)),
        (None, false) => escape(&spec.row),
    };
    let mut segments = vec![rows];
    let time = match spec.time {
        TimeSpec::Any => None,
        TimeSpec::At(ts) => Some(ts.to_string()),
        TimeSpec::Range(start, end) => Some(format!("{start},{end}")),
    };
    if !spec.columns.is_empty() || time.is_some() {
        segments.push(write_columns(&spec.columns));
    }
    segments.extend(time);
    segments
}

fn write_query(params: &[(String, Vec<u8>)]) -> String {
    params
        .iter()
        .map(|(name, value)| format!("{}={}", escape(name.as_bytes()), escape(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Invariant: a parsed CellSet renders in the same format to a document that parses to the
/// same CellSet.
fn cellset(body: &[u8], format: Format) {
    let Ok(set) = CellSet::parse(body, format) else {
        return;
    };
    let rendered = set.render(format);
    match CellSet::parse(rendered.as_bytes(), format) {
        Ok(again) => assert_eq!(again, set, "{format:?} CellSet {rendered:?} changed"),
        Err(e) => panic!("rendered {format:?} CellSet {rendered:?} does not parse: {e}"),
    }
}

/// Invariants: a parsed scanner has a non-empty time range and positive counts; its filter
/// goes through the same translation as [`filter`].
fn scanner(body: &[u8], format: Format) {
    let Ok(model) = ScannerModel::parse(body, format) else {
        return;
    };
    assert!(model.start_time < model.end_time, "{model:?}");
    assert!(model.batch > 0 && model.max_versions > 0, "{model:?}");
    if let Some(text) = &model.filter {
        filter(text.as_bytes());
    }
}

/// Invariant: a JSON filter that translates gives filter-language text the service's parser
/// accepts (a regex the parser refuses is the only allowed failure: the JSON carries it
/// verbatim).
fn filter(body: &[u8]) {
    let Ok(text) = std::str::from_utf8(body) else {
        return;
    };
    let Ok(language) = to_filter_language(text) else {
        return;
    };
    let parsed = strata_server::filter::parse_expr_bytes(&language);
    let from_json = text.trim_start().starts_with('{');
    if let (true, Err(e)) = (from_json, &parsed) {
        let shown = String::from_utf8_lossy(&language);
        assert!(
            shown.contains("regexstring:"),
            "JSON filter translated to {shown:?}, which does not parse: {e}"
        );
    }
}

/// Invariants: a parsed schema renders in the same format to a document that parses to the
/// same schema; turning its families into settings does not panic.
fn schema(body: &[u8], format: Format) {
    let Ok(schema) = TableSchema::parse(body, format) else {
        return;
    };
    let rendered = schema.render(format);
    match TableSchema::parse(rendered.as_bytes(), format) {
        Ok(again) => assert_eq!(again, schema, "{format:?} schema {rendered:?} changed"),
        Err(e) => panic!("rendered {format:?} schema {rendered:?} does not parse: {e}"),
    }
    for column in &schema.columns {
        let _ = column.to_family();
    }
}

/// Invariant: negotiation picks one of the offered representations.
fn media_types(body: &[u8]) {
    let Ok(text) = std::str::from_utf8(body) else {
        return;
    };
    let _ = format::body_format(Some(text));
    let offered = [Format::Json, Format::Xml, Format::Binary];
    if let Ok(negotiated) = format::negotiate(Some(text), &offered) {
        assert!(offered.contains(&negotiated.format), "{negotiated:?}");
    }
}
