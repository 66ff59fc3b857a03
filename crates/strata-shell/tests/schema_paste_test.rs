//! What HBase users paste: `describe`'s family lines given back to `create` (with HBase's
//! default REPLICATION_SCOPE => '0'), and `create` pre-split by NUMREGIONS and SPLITALGO.

#![allow(clippy::unwrap_used)]

mod common;

use common::{lines, Shell, TestServer};
use strata_server::TableName;

/// The family lines of `describe 'table'` (each a `{NAME => ...}` hash).
fn family_lines(sh: &mut Shell, table: &str) -> Vec<String> {
    lines(&sh.ok(&format!("describe '{table}'")))
        .into_iter()
        .filter(|l| l.starts_with("{NAME =>"))
        .collect()
}

fn refused(sh: &mut Shell, script: &str) -> String {
    let o = sh.run(script);
    assert!(!o.ok, "{script} succeeded:\n{}", o.out);
    o.err
}

#[test]
fn described_families_can_be_created_again() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok(
        "create 't', {NAME => 'cf', VERSIONS => 3, TTL => 90061, BLOCKSIZE => 8192, \
         MIN_VERSIONS => 1, KEEP_DELETED_CELLS => true, COMPRESSION => 'GZ'}, 'plain'",
    );
    let described = family_lines(&mut sh, "t");
    assert_eq!(described.len(), 2);
    assert!(
        described
            .iter()
            .all(|l| l.contains("REPLICATION_SCOPE => '0'")),
        "{described:?}"
    );
    sh.ok(&format!("create 'copy', {}", described.join(", ")));
    assert_eq!(family_lines(&mut sh, "copy"), described);
}

#[test]
fn replication_scope_zero_is_accepted_and_others_are_refused() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 'a', {NAME => 'f', REPLICATION_SCOPE => '0'}, {NAME => 'g', REPLICATION_SCOPE => 0}");
    sh.ok("alter 'a', {NAME => 'f', REPLICATION_SCOPE => 0, VERSIONS => 2}");
    let err = refused(&mut sh, "create 'b', {NAME => 'f', REPLICATION_SCOPE => 1}");
    assert!(
        err.contains("REPLICATION_SCOPE 1 is not supported"),
        "{err}"
    );
    let err = refused(
        &mut sh,
        "alter 'a', {NAME => 'f', REPLICATION_SCOPE => '1'}",
    );
    assert!(err.contains("Strata does not replicate"), "{err}");
    let err = refused(
        &mut sh,
        "create 'b', {NAME => 'f', REPLICATION_SCOPE => 'all'}",
    );
    assert!(err.contains("must be a number"), "{err}");
}

fn start_keys(server: &TestServer, table: &str) -> Vec<String> {
    let name = TableName::parse(table).unwrap();
    server
        .service
        .admin()
        .table_regions(&name)
        .unwrap()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.start_key).into_owned())
        .collect()
}

#[test]
fn numregions_with_splitalgo_pre_splits_like_hbase() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 'hex', 'f', {NUMREGIONS => 4, SPLITALGO => 'HexStringSplit'}");
    assert_eq!(
        start_keys(&server, "hex"),
        ["", "40000000", "80000000", "c0000000"]
    );
    sh.ok("create 'dec', 'f', {NUMREGIONS => 4, SPLITALGO => 'DecimalStringSplit'}");
    assert_eq!(
        start_keys(&server, "dec"),
        ["", "25000000", "50000000", "75000000"]
    );
    let full = "org.apache.hadoop.hbase.util.RegionSplitter$UniformSplit";
    sh.ok(&format!(
        "create 'uni', {{NAME => 'f'}}, {{NUMREGIONS => 2, SPLITALGO => '{full}'}}"
    ));
    let regions = server
        .service
        .admin()
        .table_regions(&TableName::parse("uni").unwrap())
        .unwrap();
    assert_eq!(regions[1].start_key.as_ref(), [0x80, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn bad_pre_splits_are_refused_with_a_reason() {
    let server = TestServer::start();
    let mut sh = server.session();
    for (script, reason) in [
        (
            "create 'x', 'f', {NUMREGIONS => 4}",
            "NUMREGIONS needs SPLITALGO",
        ),
        (
            "create 'x', 'f', {SPLITALGO => 'HexStringSplit'}",
            "SPLITALGO needs NUMREGIONS",
        ),
        (
            "create 'x', 'f', {NUMREGIONS => 1, SPLITALGO => 'HexStringSplit'}",
            "greater than 1",
        ),
        (
            "create 'x', 'f', {NUMREGIONS => -3, SPLITALGO => 'HexStringSplit'}",
            "greater than 1",
        ),
        (
            "create 'x', 'f', {NUMREGIONS => 4, SPLITALGO => 'MD5Split'}",
            "unknown split algorithm",
        ),
        (
            "create 'x', 'f', {NUMREGIONS => 4, SPLITALGO => 'UniformSplit', SPLITS => ['a']}",
            "not both",
        ),
    ] {
        let err = refused(&mut sh, script);
        assert!(err.contains(reason), "{script}: {err}");
    }
    assert!(!lines(&sh.ok("list")).contains(&"x".to_string()));
}
