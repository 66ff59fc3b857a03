#![allow(clippy::unwrap_used, clippy::expect_used)]
//! put, get, scan, count, delete, deleteall, incr, get_counter and append against a real
//! Strata Thrift server.

mod common;

use common::*;

fn setup() -> (TestServer, Shell) {
    let server = TestServer::start();
    let mut shell = server.session();
    shell.ok("create 't', {NAME => 'cf', VERSIONS => 5}, 'g'");
    (server, shell)
}

#[test]
fn put_and_get_with_binary_keys_and_values() {
    let (_server, mut sh) = setup();
    sh.ok(r#"put 't', "r\x00", 'cf:q', "v\xff\\", 7"#);
    sh.ok("put 't', 'r1', 'cf:a', 'x', 5; put 't', 'r1', 'g:b', 'y', 6");
    let out = sh.ok(r#"get 't', "r\x00""#);
    assert_eq!(
        lines(&out),
        [
            strata_shell::format::header("COLUMN", "CELL"),
            get_line("cf:q", 7, "v\\xFF\\x5C"),
            "1 row(s)".to_string(),
        ]
    );
    // Columns by list, array, or COLUMN option.
    for script in [
        "get 't', 'r1', 'g:b'",
        "get 't', 'r1', ['g:b']",
        "get 't', 'r1', {COLUMN => 'g:b'}",
        "get 't', 'r1', {COLUMNS => ['g']}",
    ] {
        let out = sh.ok(script);
        assert_eq!(
            lines(&out)[1..],
            [get_line("g:b", 6, "y"), "1 row(s)".into()],
            "{script}"
        );
    }
    let out = sh.ok("get 't', 'missing'");
    assert_eq!(lines(&out)[1..], ["0 row(s)".to_string()]);
}

#[test]
fn get_versions_timestamps_ranges_and_filters() {
    let (_server, mut sh) = setup();
    for (ts, v) in [(10, "a"), (20, "b"), (30, "c")] {
        sh.ok(&format!("put 't', 'r', 'cf:q', '{v}', {ts}"));
    }
    sh.ok("put 't', 'r', 'cf:z', 'z', 30");
    let out = sh.ok("get 't', 'r', {COLUMN => 'cf:q', VERSIONS => 3}");
    assert_eq!(
        lines(&out)[1..4],
        [
            get_line("cf:q", 30, "c"),
            get_line("cf:q", 20, "b"),
            get_line("cf:q", 10, "a")
        ]
    );
    let out = sh.ok("get 't', 'r', {VERSIONS => 3, TIMERANGE => [15, 30]}");
    assert_eq!(
        lines(&out)[1..],
        [get_line("cf:q", 20, "b"), "1 row(s)".into()]
    );
    let out = sh.ok("get 't', 'r', {TIMESTAMP => 30}");
    assert_eq!(
        lines(&out)[1..3],
        [get_line("cf:q", 30, "c"), get_line("cf:z", 30, "z")]
    );
    let out = sh.ok("get 't', 'r', {TIMESTAMP => 10}");
    assert_eq!(
        lines(&out)[1..],
        [get_line("cf:q", 10, "a"), "1 row(s)".into()]
    );
    let out = sh.ok(r#"get 't', 'r', {FILTER => "QualifierFilter(=, 'binary:z')"}"#);
    assert_eq!(
        lines(&out)[1..],
        [get_line("cf:z", 30, "z"), "1 row(s)".into()]
    );
}

#[test]
fn scan_options() {
    let (_server, mut sh) = setup();
    for (row, ts) in [("a1", 1), ("a2", 2), ("b1", 3), ("b2", 4)] {
        sh.ok(&format!(
            "put 't', '{row}', 'cf:q', 'v{row}', {ts}; put 't', '{row}', 'g:x', 'w', {ts}"
        ));
    }
    let rows = |out: &str| -> Vec<String> {
        lines(out)
            .iter()
            .skip(1)
            .filter(|l| l.starts_with(' '))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    let out = sh.ok("scan 't'");
    assert_eq!(
        lines(&out)[0],
        strata_shell::format::header("ROW", "COLUMN+CELL")
    );
    assert_eq!(lines(&out)[1], scan_line("a1", "cf:q", 1, "va1"));
    assert_eq!(lines(&out).last().unwrap(), "4 row(s)");
    assert_eq!(
        rows(&sh.ok("scan 't', {COLUMNS => 'cf:q'}")),
        ["a1", "a2", "b1", "b2"]
    );
    assert_eq!(
        rows(&sh.ok("scan 't', {STARTROW => 'a2', STOPROW => 'b2', COLUMNS => ['g']}")),
        ["a2", "b1"]
    );
    assert_eq!(
        rows(&sh.ok("scan 't', {ROWPREFIXFILTER => 'b', COLUMNS => 'cf'}")),
        ["b1", "b2"]
    );
    assert_eq!(
        rows(&sh.ok("scan 't', {ROWPREFIXFILTER => 'a', REVERSED => true, COLUMNS => 'cf'}")),
        ["a2", "a1"]
    );
    assert_eq!(
        rows(&sh.ok("scan 't', {LIMIT => 3, COLUMNS => 'cf'}")),
        ["a1", "a2", "b1"]
    );
    assert_eq!(
        rows(&sh.ok("scan 't', {REVERSED => true, LIMIT => 1, COLUMNS => 'cf'}")),
        ["b2"]
    );
    let out = sh.ok(r#"scan 't', {FILTER => "ValueFilter(=, 'binary:vb1')"}"#);
    assert_eq!(
        lines(&out)[1..],
        [scan_line("b1", "cf:q", 3, "vb1"), "1 row(s)".into()]
    );
    assert_eq!(
        rows(&sh.ok("scan 't', {TIMERANGE => [2, 4], COLUMNS => 'g:x'}")),
        ["a2", "b1"]
    );
    assert_eq!(
        rows(&sh.ok("scan 't', {TIMESTAMP => 4, COLUMNS => 'g:x'}")),
        ["b2"]
    );
    sh.ok("put 't', 'a1', 'cf:q', 'new', 9");
    let out = sh.ok("scan 't', {STOPROW => 'a2', VERSIONS => 2, COLUMNS => 'cf:q'}");
    assert_eq!(
        lines(&out)[1..],
        [
            scan_line("a1", "cf:q", 9, "new"),
            scan_line("a1", "cf:q", 1, "va1"),
            "1 row(s)".into()
        ]
    );
}

#[test]
fn count_with_interval_and_cache() {
    let (_server, mut sh) = setup();
    for i in 0..25 {
        sh.ok(&format!("put 't', 'r{i:02}', 'cf:q', 'v'"));
    }
    let out = sh.ok("count 't', INTERVAL => 10, CACHE => 7");
    let l = lines(&out);
    assert_eq!(l[0], "Current count: 10, row: r09");
    assert_eq!(l[1], "Current count: 20, row: r19");
    assert_eq!(l[2..], ["25 row(s)".to_string(), "=> 25".to_string()]);
    assert_eq!(lines(&sh.ok("count 't'")), ["25 row(s)", "=> 25"]);
}

#[test]
fn deletes() {
    let (_server, mut sh) = setup();
    for ts in [10, 20, 30] {
        sh.ok(&format!("put 't', 'r', 'cf:q', 'v{ts}', {ts}"));
    }
    sh.ok("put 't', 'r', 'cf:z', 'z', 5; put 't', 'r', 'g:x', 'x', 5");
    // delete with a timestamp removes that version and older ones.
    sh.ok("delete 't', 'r', 'cf:q', 20");
    let out = sh.ok("get 't', 'r', {COLUMN => 'cf:q', VERSIONS => 5}");
    assert_eq!(
        lines(&out)[1..],
        [get_line("cf:q", 30, "v30"), "1 row(s)".into()]
    );
    sh.ok("delete 't', 'r', 'cf:q'");
    sh.ok("deleteall 't', 'r', 'cf:z'");
    let out = sh.ok("get 't', 'r'");
    assert_eq!(
        lines(&out)[1..],
        [get_line("g:x", 5, "x"), "1 row(s)".into()]
    );
    sh.ok("deleteall 't', 'r'");
    assert_eq!(lines(&sh.ok("get 't', 'r'"))[1..], ["0 row(s)".to_string()]);
    sh.ok("put 't', 'r2', 'cf:q', 'v', 50; deleteall 't', 'r2', 'cf:q', 40");
    assert_eq!(
        lines(&sh.ok("get 't', 'r2'"))[1..],
        [get_line("cf:q", 50, "v"), "1 row(s)".into()]
    );
}

#[test]
fn counters_and_appends() {
    let (_server, mut sh) = setup();
    assert_eq!(
        lines(&sh.ok("incr 't', 'c', 'cf:n'")),
        ["COUNTER VALUE = 1"]
    );
    assert_eq!(
        lines(&sh.ok("incr 't', 'c', 'cf:n', 41")),
        ["COUNTER VALUE = 42"]
    );
    assert_eq!(
        lines(&sh.ok("incr 't', 'c', 'cf:n', -2")),
        ["COUNTER VALUE = 40"]
    );
    assert_eq!(
        lines(&sh.ok("get_counter 't', 'c', 'cf:n'")),
        ["COUNTER VALUE = 40"]
    );
    assert_eq!(
        lines(&sh.ok("get_counter 't', 'c', 'cf:none'")),
        ["No counter found at specified coordinates"]
    );
    sh.ok("put 't', 'a', 'cf:s', 'abc'");
    let o = sh.run("get_counter 't', 'a', 'cf:s'");
    assert!(!o.ok && o.err.contains("not an 8-byte counter"), "{o:?}");
    assert_eq!(
        lines(&sh.ok("append 't', 'a', 'cf:s', 'def'")),
        ["CURRENT VALUE = abcdef"]
    );
    assert_eq!(
        lines(&sh.ok(r#"append 't', 'a', 'cf:s', "\x01""#)),
        ["CURRENT VALUE = abcdef\\x01"]
    );
}
