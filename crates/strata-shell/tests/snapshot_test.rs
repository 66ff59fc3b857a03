#![allow(clippy::unwrap_used, clippy::expect_used)]
//! HBase's snapshot commands against a real Strata Thrift server.

mod common;

use common::*;

#[test]
fn snapshot_clone_restore_and_delete() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', 'f', {SPLITS => ['m']}");
    sh.ok("put 't', 'a', 'f:q', 'old'; put 't', 'z', 'f:q', 'old'");
    sh.ok("snapshot 't', 'snap1'");
    sh.ok("put 't', 'a', 'f:q', 'new'; put 't', 'b', 'f:q', 'added'");

    let listed = lines(&sh.ok("list_snapshots"));
    assert_eq!(listed.len(), 4, "{listed:?}");
    assert!(listed[0].starts_with("SNAPSHOT") && listed[0].contains("TABLE + CREATION TIME"));
    assert!(
        listed[1].trim_start().starts_with("snap1") && listed[1].contains(" t ("),
        "{}",
        listed[1]
    );
    assert_eq!(listed[2..], ["1 row(s)", "=> [\"snap1\"]"]);
    let none = lines(&sh.ok("list_snapshots 'x.*'"));
    assert_eq!(none[1..], ["0 row(s)", "=> []"]);

    sh.ok("clone_snapshot 'snap1', 'copy'");
    let copy = sh.ok("scan 'copy'");
    assert!(
        copy.contains("value=old") && !copy.contains("value=new") && !copy.contains("added"),
        "{copy}"
    );
    assert_eq!(
        lines(&sh.ok("list_regions 'copy'")).len(),
        lines(&sh.ok("list_regions 't'")).len()
    );

    let o = sh.run("restore_snapshot 'snap1'");
    assert!(!o.ok && o.err.contains("disable"), "{o:?}");
    sh.ok("disable 't'; restore_snapshot 'snap1'; enable 't'");
    let restored = sh.ok("scan 't'");
    assert!(
        restored.contains("value=old") && !restored.contains("added"),
        "{restored}"
    );

    let o = sh.run("snapshot 't', 'snap1'");
    assert!(!o.ok && o.err.contains("already exists"), "{o:?}");
    let o = sh.run("clone_snapshot 'nope', 'x'");
    assert!(!o.ok && o.err.contains("does not exist"), "{o:?}");
    let o = sh.run("snapshot 't', '.bad'");
    assert!(!o.ok && o.err.contains("illegal character"), "{o:?}");

    sh.ok("delete_snapshot 'snap1'");
    assert!(lines(&sh.ok("list_snapshots")).contains(&"0 row(s)".to_string()));
    assert!(sh.ok("get 'copy', 'a'").contains("value=old"));
}
