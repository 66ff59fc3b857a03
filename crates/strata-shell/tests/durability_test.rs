#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A table's DURABILITY through `create`, `alter` and `describe`, HBase 0.94's
//! DEFERRED_LOG_FLUSH, and the writes it governs, against a real Strata Thrift server.

mod common;

use common::*;
use strata_server::{TableName, WriteDurability};

fn durability_of(server: &TestServer, table: &str) -> WriteDurability {
    let name = TableName::parse(table).unwrap();
    server
        .service
        .admin()
        .describe_table(&name)
        .unwrap()
        .durability
}

/// The line `describe` prints after the table's state.
fn table_line(sh: &mut Shell, table: &str) -> String {
    lines(&sh.ok(&format!("describe '{table}'")))[1].clone()
}

#[test]
fn the_seed_statement_with_deferred_log_flush_makes_an_async_wal_table() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok(
        "create 'counters', {NAME => 'daily', VERSIONS => 1, COMPRESSION => 'NONE', \
         BLOCKSIZE => '65536', IN_MEMORY => 'false', BLOCKCACHE => 'true', \
         DEFERRED_LOG_FLUSH => 'true'}",
    );
    assert_eq!(
        durability_of(&server, "counters"),
        WriteDurability::AsyncWal
    );
    let out = sh.ok("describe 'counters'");
    let l = lines(&out);
    assert_eq!(
        l[1],
        "counters, {TABLE_ATTRIBUTES => {DURABILITY => 'ASYNC_WAL'}}"
    );
    // The family took its own settings.
    for needle in [
        "NAME => 'daily'",
        "VERSIONS => '1'",
        "BLOCKSIZE => '65536 B (64KB)'",
    ] {
        assert!(l[3].contains(needle), "{needle} missing in {}", l[3]);
    }
    assert!(!l[3].contains("DEFERRED"), "{}", l[3]);
    sh.ok("incr 'counters', 'r', 'daily:hits'");
}

#[test]
fn durability_as_a_table_attribute_in_create_and_alter() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', {NAME => 'f'}, DURABILITY => 'SKIP_WAL'");
    assert_eq!(durability_of(&server, "t"), WriteDurability::SkipWal);
    assert_eq!(
        table_line(&mut sh, "t"),
        "t, {TABLE_ATTRIBUTES => {DURABILITY => 'SKIP_WAL'}}"
    );
    sh.ok("alter 't', DURABILITY => 'fsync_wal'");
    assert_eq!(durability_of(&server, "t"), WriteDurability::FsyncWal);
    sh.ok("alter 't', METHOD => 'table_att', DEFERRED_LOG_FLUSH => true");
    assert_eq!(durability_of(&server, "t"), WriteDurability::AsyncWal);
    sh.ok("alter 't', {NAME => 'f', VERSIONS => 4, DEFERRED_LOG_FLUSH => 'false'}");
    assert_eq!(durability_of(&server, "t"), WriteDurability::SyncWal);
    assert!(sh.ok("describe 't'").contains("VERSIONS => '4'"));
    sh.ok("alter 't', METHOD => 'table_att_unset', NAME => 'DURABILITY'");
    assert_eq!(durability_of(&server, "t"), WriteDurability::UseDefault);
    assert_eq!(table_line(&mut sh, "t"), "t");
    // Splits and durability in one table hash.
    sh.ok("create 's', 'f', {SPLITS => ['m'], DURABILITY => 'ASYNC_WAL'}");
    assert_eq!(durability_of(&server, "s"), WriteDurability::AsyncWal);
    assert_eq!(
        lines(&sh.ok("list_regions 's'")).last().unwrap(),
        "2 row(s)"
    );
}

#[test]
fn a_skip_wal_tables_shell_writes_are_not_logged() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 'quiet', 'f', DURABILITY => 'SKIP_WAL'");
    sh.ok("create 'loud', 'f'");
    let logged = || server.service.engine().wal_stats().appends;
    let writes = "put '{t}', 'r', 'f:q', 'v'; incr '{t}', 'r', 'f:n'; \
                  append '{t}', 'r', 'f:q', 'w'; deleteall '{t}', 'r', 'f:q'";
    let before = logged();
    sh.ok(&writes.replace("{t}", "quiet"));
    assert_eq!(logged(), before, "SKIP_WAL writes went to the WAL");
    sh.ok(&writes.replace("{t}", "loud"));
    assert_eq!(
        logged(),
        before + 4,
        "a USE_DEFAULT table's writes are logged"
    );
}

#[test]
fn unknown_durabilities_and_unsupported_options_are_refused() {
    let server = TestServer::start();
    let mut sh = server.session();
    let refused = |sh: &mut Shell, script: &str, message: &str| {
        let o = sh.run(script);
        assert!(!o.ok, "{script} succeeded");
        assert!(o.err.contains(message), "{script}: {}", o.err);
    };
    refused(
        &mut sh,
        "create 'a', 'f', DURABILITY => 'FAST'",
        "unknown DURABILITY 'FAST': expected one of USE_DEFAULT, SKIP_WAL, ASYNC_WAL, \
         SYNC_WAL, FSYNC_WAL",
    );
    refused(
        &mut sh,
        "create 'a', {NAME => 'f', DEFERRED_LOG_FLUSH => 'yes'}",
        "DEFERRED_LOG_FLUSH must be true or false",
    );
    refused(
        &mut sh,
        "create 'a', 'f', MAX_FILESIZE => '134217728'",
        "unknown option MAX_FILESIZE for create",
    );
    refused(
        &mut sh,
        "create 'a', {NAME => 'f', REPLICATION_SCOPE => 1}",
        "REPLICATION_SCOPE 1 is not supported",
    );
    refused(
        &mut sh,
        "create 'a', {NAME => 'f', DEFERRED_LOG_FLUSH => true}, DURABILITY => 'SYNC_WAL'",
        "conflicting durabilities: ASYNC_WAL and SYNC_WAL",
    );
    assert!(!lines(&sh.ok("list")).contains(&"a".to_string()));
    sh.ok("create 't', 'f'");
    refused(
        &mut sh,
        "alter 't', DURABILITY => 'LATER'",
        "unknown DURABILITY 'LATER'",
    );
    refused(
        &mut sh,
        "alter 't', METHOD => 'table_att', READONLY => true",
        "unknown option READONLY for alter",
    );
    refused(
        &mut sh,
        "alter 't', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'",
        "unknown table attribute \"MAX_FILESIZE\"",
    );
    refused(
        &mut sh,
        "alter 't', METHOD => 'frobnicate'",
        "unknown METHOD \"frobnicate\"",
    );
    // A hash with neither NAME nor a table attribute is still a family missing its name.
    refused(
        &mut sh,
        "create 'b', {VERSIONS => 3}",
        "a column family hash needs NAME",
    );
    assert_eq!(durability_of(&server, "t"), WriteDurability::UseDefault);
}
