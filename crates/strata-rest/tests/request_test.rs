#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The path and query parser on its own.

use strata_rest::request::{
    decode_component, parse_query, parse_route, prefix_end, ColumnSpec, RequestError, Route,
    RowSpec, TimeSpec,
};

fn row_spec(path: &str) -> (String, RowSpec) {
    match parse_route(path).unwrap() {
        Route::Row { table, spec } => (table, spec),
        other => panic!("{path}: expected a row route, got {other:?}"),
    }
}

fn column(family: &str, qualifier: Option<&str>) -> ColumnSpec {
    ColumnSpec {
        family: family.as_bytes().to_vec().into(),
        qualifier: qualifier.map(|q| q.as_bytes().to_vec().into()),
    }
}

#[test]
fn fixed_routes() {
    assert_eq!(parse_route("/").unwrap(), Route::TableList);
    assert_eq!(parse_route("").unwrap(), Route::TableList);
    assert_eq!(parse_route("/version").unwrap(), Route::Version);
    assert_eq!(parse_route("/version/rest").unwrap(), Route::Version);
    assert_eq!(
        parse_route("/version/cluster").unwrap(),
        Route::ClusterVersion
    );
    assert_eq!(
        parse_route("/status/cluster").unwrap(),
        Route::ClusterStatus
    );
    assert_eq!(parse_route("/status").unwrap_err(), RequestError::NotFound);
    assert_eq!(parse_route("/t").unwrap_err(), RequestError::NotFound);
    assert_eq!(parse_route("/t/schema").unwrap(), Route::Schema("t".into()));
    assert_eq!(
        parse_route("/ns%3At/regions").unwrap(),
        Route::Regions("ns:t".into())
    );
    assert_eq!(
        parse_route("/t/scanner").unwrap(),
        Route::Scanners("t".into())
    );
    assert_eq!(parse_route("/t/exists").unwrap(), Route::Exists("t".into()));
    assert_eq!(parse_route("/namespaces").unwrap(), Route::Namespaces);
    assert_eq!(
        parse_route("/namespaces/ns").unwrap(),
        Route::Namespace("ns".into())
    );
    assert_eq!(
        parse_route("/namespaces/ns/tables").unwrap(),
        Route::NamespaceTables("ns".into())
    );
    assert_eq!(
        parse_route("/namespaces/ns/x").unwrap_err(),
        RequestError::NotFound
    );
    assert_eq!(
        parse_route("/t/scanner/abc").unwrap(),
        Route::Scanner {
            table: "t".into(),
            id: "abc".into()
        }
    );
}

#[test]
fn rows_columns_and_timestamps() {
    let (table, spec) = row_spec("/t/r1");
    assert_eq!(table, "t");
    assert_eq!(&spec.row[..], b"r1");
    assert!(spec.is_single_row());
    assert!(spec.columns.is_empty());
    assert_eq!(spec.time, TimeSpec::Any);
    assert_eq!(spec.max_versions, 1);

    let (_, spec) = row_spec("/t/r1/cf:a,cf2,cf:/42");
    assert_eq!(
        spec.columns,
        vec![
            column("cf", Some("a")),
            column("cf2", None),
            column("cf", Some(""))
        ]
    );
    assert_eq!(spec.time, TimeSpec::At(42));

    let (_, spec) = row_spec("/t/r1/cf:a/10,20");
    assert_eq!(spec.time, TimeSpec::Range(10, 20));
    // HBase reads an end of 0 as no range.
    let (_, spec) = row_spec("/t/r1/cf:a/10,0");
    assert_eq!(spec.time, TimeSpec::At(10));
}

#[test]
fn encoded_keys_keep_slashes_commas_and_binary_bytes() {
    let (_, spec) = row_spec("/t/a%2Fb%2Cc+d%FF%00/cf:q%2Fx");
    assert_eq!(&spec.row[..], b"a/b,c d\xff\x00");
    assert_eq!(spec.columns, vec![column("cf", Some("q/x"))]);
    assert!(spec.is_single_row());
    assert_eq!(decode_component(b"%2b%2B+").unwrap(), b"++ ");
}

#[test]
fn ranges_and_globs() {
    let (_, spec) = row_spec("/t/a,c");
    assert_eq!(
        (&spec.row[..], spec.end_row.as_deref()),
        (&b"a"[..], Some(&b"c"[..]))
    );
    assert!(!spec.is_single_row());
    let (_, spec) = row_spec("/t/ab*/cf");
    assert!(spec.glob);
    assert_eq!(&spec.row[..], b"ab");
    assert_eq!(
        parse_route("/t/ab*").unwrap(),
        Route::TableScan {
            table: "t".into(),
            prefix: b"ab".to_vec().into()
        }
    );
    assert_eq!(&prefix_end(b"ab")[..], b"ac");
    assert_eq!(&prefix_end(b"a\xff")[..], b"b");
    assert!(prefix_end(b"\xff\xff").is_empty());
}

#[test]
fn multiget_columns() {
    match parse_route("/t/multiget/cf:a,cf2").unwrap() {
        Route::MultiGet { table, columns } => {
            assert_eq!(table, "t");
            assert_eq!(columns, vec![column("cf", Some("a")), column("cf2", None)]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_paths_are_bad_requests() {
    for path in [
        "/t/%",
        "/t/%zz",
        "/t/r/cf:a/notanumber",
        "/t/r/cf:a/-5",
        "/t/r/cf:a/20,10",
        "/t/r/cf,,x",
        "/t/a*,b",
        "/t/r/cf/1/extra",
        "/t/,b",
        "/%FF/row",
    ] {
        match parse_route(path) {
            Err(RequestError::BadRequest(_)) => {}
            other => panic!("{path}: expected a bad request, got {other:?}"),
        }
    }
}

#[test]
fn query_strings() {
    let params = parse_query(Some("row=a%2Fb&row=c+d&v=3&flag")).unwrap();
    assert_eq!(
        params,
        vec![
            ("row".to_string(), b"a/b".to_vec()),
            ("row".to_string(), b"c d".to_vec()),
            ("v".to_string(), b"3".to_vec()),
            ("flag".to_string(), Vec::new()),
        ]
    );
    assert!(parse_query(None).unwrap().is_empty());
    assert!(parse_query(Some("v=%G1")).is_err());
}

/// Arbitrary bytes never panic the parser.
#[test]
fn random_paths_never_panic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let alphabet = b"/%,:*+aZ09\xff ?";
    for _ in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 24) as usize;
        let path: Vec<u8> = (0..len)
            .map(|i| alphabet[((seed >> (i % 60)) as usize + i) % alphabet.len()])
            .collect();
        let path = String::from_utf8_lossy(&path);
        let _ = parse_route(&path);
        let _ = parse_query(Some(&path));
    }
}
