#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A family's STORAGE_POLICY through `create`, `alter` and `describe` (as a family key, in
//! METADATA and in CONFIGURATION, as HBase takes it), against a real Strata Thrift server.

mod common;

use common::*;
use strata_engine::fs::StoragePolicy;
use strata_server::TableName;

fn policies(server: &TestServer, table: &str) -> Vec<Option<StoragePolicy>> {
    let name = TableName::parse(table).unwrap();
    let described = server.service.admin().describe_table(&name).unwrap();
    described
        .families
        .iter()
        .map(|f| f.storage_policy)
        .collect()
}

#[test]
fn create_alter_and_describe_a_family_storage_policy() {
    let server = TestServer::start();
    let mut sh = server.session();
    sh.ok("create 't', {NAME => 'hot', STORAGE_POLICY => 'ALL_SSD'}, \
         {NAME => 'cold', METADATA => {'STORAGE_POLICY' => 'cold'}}, 'plain'");
    let all_ssd = Some(StoragePolicy::AllSsd);
    let cold = Some(StoragePolicy::Cold);
    assert_eq!(policies(&server, "t"), [all_ssd, cold, None]);
    let out = sh.ok("describe 't'");
    assert!(out.contains("STORAGE_POLICY => 'ALL_SSD'"), "{out}");
    assert!(out.contains("STORAGE_POLICY => 'COLD'"), "{out}");
    let plain = lines(&out)
        .into_iter()
        .find(|l| l.contains("NAME => 'plain'"))
        .unwrap();
    assert!(!plain.contains("STORAGE_POLICY"), "{plain}");
    sh.ok("alter 't', {NAME => 'plain', \
         CONFIGURATION => {'hbase.hstore.block.storage.policy' => 'WARM'}}");
    sh.ok("alter 't', {NAME => 'hot', STORAGE_POLICY => ''}");
    let warm = Some(StoragePolicy::Warm);
    assert_eq!(policies(&server, "t"), [None, cold, warm]);
}

/// Runs a script that must fail; returns its error output.
fn refused(sh: &mut Shell, script: &str) -> String {
    let o = sh.run(script);
    assert!(!o.ok, "{script} succeeded:\n{}", o.out);
    o.err
}

#[test]
fn unknown_policies_and_metadata_keys_are_refused() {
    let server = TestServer::start();
    let mut sh = server.session();
    // A name the server does not define: the server refuses it, naming it.
    let err = refused(
        &mut sh,
        "create 't', {NAME => 'f', STORAGE_POLICY => 'FAST'}",
    );
    assert!(err.contains("unknown storage policy \"FAST\""), "{err}");
    // Not a policy name at all: the shell refuses it before asking.
    let err = refused(
        &mut sh,
        "create 't', {NAME => 'f', STORAGE_POLICY => 'no-such thing'}",
    );
    assert!(
        err.contains("unknown STORAGE_POLICY 'no-such thing'"),
        "{err}"
    );
    let err = refused(
        &mut sh,
        "create 't', {NAME => 'f', METADATA => {'OWNER' => 'me'}}",
    );
    assert!(
        err.contains("METADATA key \"OWNER\" is not supported"),
        "{err}"
    );
    let err = refused(
        &mut sh,
        "create 't', {NAME => 'f', STORAGE_POLICY => 'HOT', \
         METADATA => {'STORAGE_POLICY' => 'COLD'}}",
    );
    assert!(err.contains("STORAGE_POLICY is given twice"), "{err}");
}
