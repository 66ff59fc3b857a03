//! A table's and its families' metadata (attributes and configuration Strata keeps without
//! acting on them) through the service: created, described byte for byte, kept across a
//! restart, modified, and checked (REPLICATION_SCOPE only 0, no interpreted keys).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{FamilyOptions, SchemaMetadata};
use strata_server::{ErrorKind, Service, ServiceOptions, TableDescriptor, TableName};

fn open(dir: &std::path::Path) -> Arc<Service> {
    Service::open(ServiceOptions::new(dir)).unwrap()
}

fn metadata(pairs: &[(&[u8], &[u8])], config: &[(&str, &str)]) -> SchemaMetadata {
    let mut m = SchemaMetadata::default();
    for (k, v) in pairs {
        m.attributes
            .insert(Bytes::copy_from_slice(k), Bytes::copy_from_slice(v));
    }
    for (k, v) in config {
        m.configuration.insert(k.to_string(), v.to_string());
    }
    m
}

/// What PerformanceEvaluation sets and compares, a binary key, and a family's own.
fn descriptor() -> TableDescriptor {
    let name = TableName::parse("TestTable").unwrap();
    let mut family = FamilyOptions::new("info0");
    family.metadata = metadata(
        &[(b"REPLICATION_SCOPE", b"0"), (b"user", b"\x00\xff")],
        &[("hbase.hstore.compaction.min", "4")],
    );
    let mut d = TableDescriptor::new(name, vec![family, FamilyOptions::new("info1")]);
    d.metadata = metadata(
        &[
            (b"REGION_REPLICATION", b"1"),
            (
                b"SPLIT_POLICY",
                b"org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy",
            ),
            (b"\x01raw", b"\x02"),
        ],
        &[("hbase.hregion.memstore.flush.size", "134217728")],
    );
    d
}

#[test]
fn metadata_is_described_as_created_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let wanted = descriptor();
    {
        let svc = open(dir.path());
        svc.admin()
            .create_table_from(wanted.clone(), vec![Bytes::from("m")])
            .unwrap();
        assert_eq!(svc.admin().describe_table(&wanted.name).unwrap(), wanted);
        assert_eq!(svc.admin().table_regions(&wanted.name).unwrap().len(), 2);
    }
    let svc = open(dir.path());
    assert_eq!(svc.admin().describe_table(&wanted.name).unwrap(), wanted);
}

#[test]
fn modify_table_replaces_metadata_and_families() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let created = descriptor();
    svc.admin()
        .create_table_from(created.clone(), Vec::new())
        .unwrap();
    let mut changed = created.clone();
    changed.metadata = metadata(&[(b"REGION_REPLICATION", b"1")], &[]);
    changed.families[0].metadata = SchemaMetadata::default();
    changed.families[0].max_versions = 5;
    svc.admin().modify_table(&changed).unwrap();
    assert_eq!(svc.admin().describe_table(&created.name).unwrap(), changed);
    // Adding a family needs the table disabled, as every other family add does.
    let mut more = changed.clone();
    more.families.push(FamilyOptions::new("info2"));
    assert!(svc.admin().modify_table(&more).is_err());
    svc.admin().disable_table(&created.name).unwrap();
    svc.admin().modify_table(&more).unwrap();
    assert_eq!(svc.admin().describe_table(&created.name).unwrap(), more);
}

#[test]
fn replication_scope_other_than_zero_and_interpreted_keys_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let mut scoped = descriptor();
    scoped.families[0]
        .metadata
        .attributes
        .insert(Bytes::from("REPLICATION_SCOPE"), Bytes::from("1"));
    let err = svc
        .admin()
        .create_table_from(scoped.clone(), Vec::new())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("REPLICATION_SCOPE 1"), "{err}");
    let mut durable = descriptor();
    durable
        .metadata
        .attributes
        .insert(Bytes::from("DURABILITY"), Bytes::from("ASYNC_WAL"));
    let err = svc
        .admin()
        .create_table_from(durable, Vec::new())
        .unwrap_err();
    assert!(err.to_string().contains("DURABILITY"), "{err}");
    assert!(svc.admin().list_tables().is_empty(), "nothing was created");
}

#[test]
fn a_namespace_keeps_its_configuration_across_a_restart_and_a_modify() {
    let dir = tempfile::tempdir().unwrap();
    let config = |pairs: &[(&str, &str)]| metadata(&[], pairs).configuration;
    let quota = config(&[("hbase.namespace.quota.maxtables", "5")]);
    {
        let svc = open(dir.path());
        svc.admin()
            .create_namespace_with("apps", quota.clone())
            .unwrap();
        svc.admin().create_namespace("plain").unwrap();
        assert_eq!(svc.admin().namespace_config("apps").unwrap(), quota);
    }
    let svc = open(dir.path());
    assert_eq!(svc.admin().namespace_config("apps").unwrap(), quota);
    assert!(svc.admin().namespace_config("plain").unwrap().is_empty());
    assert!(svc.admin().namespace_config("default").unwrap().is_empty());
    let replaced = config(&[("k", "v")]);
    svc.admin()
        .modify_namespace("apps", replaced.clone())
        .unwrap();
    assert_eq!(svc.admin().namespace_config("apps").unwrap(), replaced);
    let missing = svc.admin().modify_namespace("nope", replaced).unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound, "{missing}");
    assert_eq!(
        svc.admin().namespace_config("nope").unwrap_err().kind(),
        ErrorKind::NotFound
    );
}
