#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A family's ROW_CACHE through `create`, `alter` and `describe`, against a real Strata
//! Thrift server.

mod common;

use common::*;
use strata_server::TableName;

fn row_cache_flags(server: &TestServer, table: &str) -> Vec<bool> {
    let name = TableName::parse(table).unwrap();
    let described = server.service.admin().describe_table(&name).unwrap();
    described.families.iter().map(|f| f.row_cache).collect()
}

#[test]
fn create_alter_and_describe_a_family_row_cache() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', {NAME => 'hot', ROW_CACHE => 'true'}, 'plain'");
    assert_eq!(row_cache_flags(&server, "t"), [true, false]);
    let out = sh.ok("describe 't'");
    let line = |name: &str| {
        lines(&out)
            .into_iter()
            .find(|l| l.contains(&format!("NAME => '{name}'")))
            .unwrap()
    };
    assert!(line("hot").contains("ROW_CACHE => 'true'"), "{out}");
    assert!(!line("plain").contains("ROW_CACHE"), "{out}");
    sh.ok("alter 't', {NAME => 'hot', ROW_CACHE => false}, {NAME => 'plain', ROW_CACHE => true}");
    assert_eq!(row_cache_flags(&server, "t"), [false, true]);
    let o = sh.run("alter 't', {NAME => 'hot', ROW_CACHE => 'sometimes'}");
    assert!(
        !o.ok && o.err.contains("ROW_CACHE must be true or false"),
        "{}",
        o.err
    );
}
