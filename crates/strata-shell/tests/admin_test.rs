#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Namespaces, tables, schema changes and region tools against a real Strata Thrift server.

mod common;

use common::*;

#[test]
fn namespaces() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create_namespace 'ns1'");
    assert_eq!(
        lines(&sh.ok("list_namespace")),
        ["NAMESPACE", "default", "hbase", "ns1", "3 row(s)"]
    );
    assert_eq!(
        lines(&sh.ok("list_namespace 'n.*'")),
        ["NAMESPACE", "ns1", "1 row(s)"]
    );
    sh.ok("create 'ns1:t', 'f'");
    let o = sh.run("drop_namespace 'ns1'");
    assert!(!o.ok && o.err.contains("not empty"), "{o:?}");
    sh.ok("disable 'ns1:t'; drop 'ns1:t'; drop_namespace 'ns1'");
    assert_eq!(
        lines(&sh.ok("list_namespace")),
        ["NAMESPACE", "default", "hbase", "2 row(s)"]
    );
    let o = sh.run("create_namespace 'default'");
    assert!(!o.ok && o.err.contains("already exists"), "{o:?}");
}

#[test]
fn create_describe_list_exists() {
    let server = TestServer::start();
    let mut sh = server.session();
    let out = sh.ok(
        "create 'users', {NAME => 'cf', VERSIONS => 3, TTL => 86400, COMPRESSION => 'SNAPPY', \
         BLOOMFILTER => 'ROWCOL', BLOCKSIZE => 8192, IN_MEMORY => true}, 'meta', {SPLITS => ['g', 'p']}",
    );
    assert_eq!(
        lines(&out),
        ["Created table users", "=> Hbase::Table - users"]
    );
    let out = sh.ok("describe 'users'");
    let l = lines(&out);
    assert_eq!(
        l[..3],
        [
            "Table users is ENABLED",
            "users",
            "COLUMN FAMILIES DESCRIPTION"
        ]
    );
    for needle in [
        "NAME => 'cf'",
        "VERSIONS => '3'",
        "TTL => '86400 SECONDS (1 DAY)'",
        "COMPRESSION => 'SNAPPY'",
        "BLOOMFILTER => 'ROWCOL'",
        "BLOCKSIZE => '8192 B (8KB)'",
        "IN_MEMORY => 'true'",
    ] {
        assert!(l[3].contains(needle), "{needle} missing in {}", l[3]);
    }
    assert!(
        l[4].starts_with("{NAME => 'meta', VERSIONS => '1'"),
        "{}",
        l[4]
    );
    assert!(l[4].contains("TTL => 'FOREVER'"), "{}", l[4]);
    assert_eq!(l.last().unwrap(), "2 row(s)");
    // The split keys made three regions.
    assert_eq!(
        lines(&sh.ok("list_regions 'users'")).last().unwrap(),
        "3 row(s)"
    );

    sh.ok("create 'events', 'e'");
    assert_eq!(
        lines(&sh.ok("list")),
        [
            "TABLE",
            "events",
            "users",
            "2 row(s)",
            "=> [\"events\", \"users\"]"
        ]
    );
    assert_eq!(lines(&sh.ok("list 'u.*'"))[1..3], ["users", "1 row(s)"]);
    assert_eq!(
        lines(&sh.ok("exists 'users'")),
        ["Table users does exist", "=> true"]
    );
    assert_eq!(
        lines(&sh.ok("exists 'nope'")),
        ["Table nope does not exist", "=> false"]
    );
    let o = sh.run("create 'users', 'x'");
    assert!(!o.ok && o.err.contains("already"), "{o:?}");
}

#[test]
fn enable_disable_drop() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', 'f'");
    assert_eq!(lines(&sh.ok("is_enabled 't'")), ["true", "=> true"]);
    let o = sh.run("drop 't'");
    assert!(!o.ok && o.err.contains("disable it first"), "{o:?}");
    sh.ok("disable 't'");
    assert_eq!(lines(&sh.ok("is_disabled 't'")), ["true", "=> true"]);
    let o = sh.run("put 't', 'r', 'f:q', 'v'");
    assert!(!o.ok && o.err.contains("disabled"), "{o:?}");
    sh.ok("enable 't'; put 't', 'r', 'f:q', 'v'; disable 't'; drop 't'");
    assert_eq!(lines(&sh.ok("exists 't'"))[0], "Table t does not exist");
}

#[test]
fn alter_adds_modifies_and_deletes_families() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', 'f'; put 't', 'r', 'f:q', 'v', 1");
    let out = sh.ok(
        "alter 't', {NAME => 'g', VERSIONS => 2}, {NAME => 'f', VERSIONS => 4, TTL => 'FOREVER'}",
    );
    assert_eq!(
        lines(&out),
        ["Updating all regions with the new schema...", "Done."]
    );
    let d = sh.ok("describe 't'");
    assert!(d.contains("{NAME => 'f', VERSIONS => '4'"), "{d}");
    assert!(d.contains("{NAME => 'g', VERSIONS => '2'"), "{d}");
    // The table stays enabled and keeps its data.
    assert_eq!(lines(&sh.ok("get 't', 'r'"))[1], get_line("f:q", 1, "v"));
    sh.ok(
        "alter 't', 'h'; alter 't', {NAME => 'g', METHOD => 'delete'}; alter 't', 'delete' => 'h'",
    );
    let d = sh.ok("describe 't'");
    assert!(
        !d.contains("NAME => 'g'") && !d.contains("NAME => 'h'"),
        "{d}"
    );
    assert!(d.contains("Table t is ENABLED"), "{d}");
    let o = sh.run("alter 't', {NAME => 'f', METHOD => 'rename'}");
    assert!(!o.ok && o.err.contains("METHOD"), "{o:?}");
}

#[test]
fn truncate_and_truncate_preserve() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', 'f', {SPLITS => ['m']}; put 't', 'a', 'f:q', 'v'; put 't', 'z', 'f:q', 'v'");
    let out = sh.ok("truncate_preserve 't'");
    assert_eq!(
        lines(&out)[0],
        "Truncating 't' table (it may take a while):"
    );
    assert_eq!(lines(&sh.ok("count 't'")), ["0 row(s)", "=> 0"]);
    assert_eq!(
        lines(&sh.ok("list_regions 't'")).last().unwrap(),
        "2 row(s)"
    );
    sh.ok("put 't', 'a', 'f:q', 'v'; truncate 't'");
    assert_eq!(lines(&sh.ok("count 't'")), ["0 row(s)", "=> 0"]);
    assert_eq!(
        lines(&sh.ok("list_regions 't'")).last().unwrap(),
        "1 row(s)"
    );
    assert_eq!(lines(&sh.ok("is_enabled 't'"))[0], "true");
}

/// The encoded names of a table's regions, from `list_regions`.
fn encoded_regions(sh: &mut Shell, table: &str) -> Vec<String> {
    let out = sh.ok(&format!("list_regions '{table}'"));
    lines(&out)
        .iter()
        .skip(1)
        .filter(|l| l.contains('|'))
        .map(|l| l.split('|').nth(1).unwrap().trim().to_string())
        .collect()
}

#[test]
fn flush_compact_split_merge() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', 'f'");
    for i in 0..20 {
        sh.ok(&format!("put 't', 'r{i:02}', 'f:q', 'v{i}'"));
    }
    sh.ok("flush 't'; compact 't'; major_compact 't'");
    sh.ok("split 't', 'r10'");
    let regions = encoded_regions(&mut sh, "t");
    assert_eq!(regions.len(), 2);
    assert!(regions.iter().all(|r| r.len() == 32), "{regions:?}");
    // Flushing by region name works too.
    sh.ok(&format!("flush '{}'", regions[0]));
    sh.ok(&format!("merge_region '{}', '{}'", regions[0], regions[1]));
    assert_eq!(encoded_regions(&mut sh, "t").len(), 1);
    // Splitting a whole table splits each region near its middle.
    sh.ok("split 't'");
    assert_eq!(encoded_regions(&mut sh, "t").len(), 2);
    let regions = encoded_regions(&mut sh, "t");
    sh.ok(&format!(
        "merge_region ['{}', '{}']",
        regions[0], regions[1]
    ));
    assert_eq!(lines(&sh.ok("count 't'")), ["20 row(s)", "=> 20"]);
    let o = sh
        .run("merge_region 'ffffffffffffffffffffffffffffffff', 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'");
    assert!(!o.ok && o.err.contains("UnknownRegionException"), "{o:?}");
}

#[test]
fn general_commands() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', 'f', {SPLITS => ['k']}");
    let out = sh.ok("status");
    assert!(out.contains("1 servers"), "{out}");
    assert!(out.contains("1 tables, 2 regions"), "{out}");
    let out = sh.ok("version");
    assert!(
        out.contains(&format!("server: Strata {}", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    assert!(sh.ok("whoami").contains("(auth:SIMPLE)"));
    let out = sh.ok("help");
    for group in ["general", "namespace", "ddl", "dml", "tools"] {
        assert!(out.contains(&format!("Group name: {group}")), "{out}");
    }
    assert!(!out.contains("Took "), "help prints no timing");
    assert!(sh.ok("help 'scan'").contains("ROWPREFIXFILTER"));
    // exit stops the script.
    let out = sh.ok("list; exit; create 'never', 'f'");
    assert!(out.contains("TABLE"));
    assert_eq!(
        lines(&server.run("exists 'never'").out)[0],
        "Table never does not exist"
    );
}

#[test]
fn grant_list_and_revoke_permissions_at_each_scope() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create_namespace 'ns1'; create 't1', 'cf'");
    sh.ok("grant 'bob', 'RW', 't1'; grant '@ops', 'RWXCA'; grant 'ann', 'R', '@ns1'");
    sh.ok("grant 'bob', 'R', 't1', 'cf', 'q'");
    let table = lines(&sh.ok("user_permission 't1'"));
    assert_eq!(table.len(), 4, "{table:?}");
    assert!(
        table[1].contains("bob")
            && table[1].contains("default,t1,,: [Permission: actions=READ,WRITE]"),
        "{table:?}"
    );
    assert!(
        table[2].contains("bob")
            && table[2].contains("default,t1,cf,q: [Permission: actions=READ]"),
        "{table:?}"
    );
    let global = lines(&sh.ok("user_permission"));
    assert!(
        global
            .iter()
            .any(|l| l.contains("@ops") && l.contains("READ,WRITE,EXEC,CREATE,ADMIN")),
        "{global:?}"
    );
    let namespace = lines(&sh.ok("user_permission '@ns1'"));
    assert!(
        namespace
            .iter()
            .any(|l| l.contains("ann") && l.contains("ns1,,,: [Permission: actions=READ]")),
        "{namespace:?}"
    );
    // A grant replaces what the user held there, as HBase's shell does.
    sh.ok("grant 'bob', 'A', 't1'");
    assert!(lines(&sh.ok("user_permission 't1'"))[1].contains("actions=ADMIN"));
    sh.ok("revoke 'bob', 't1'");
    let left = lines(&sh.ok("user_permission 't1'"));
    assert!(
        left.iter().all(|l| !l.contains("default,t1,,:")),
        "{left:?}"
    );
    let o = sh.run("grant 'bob', 'RZ', 't1'");
    assert!(!o.ok && o.err.contains("'Z'"), "{o:?}");
    let o = sh.run("grant 'bob', 'R', 'missing'");
    assert!(!o.ok, "{o:?}");
}
