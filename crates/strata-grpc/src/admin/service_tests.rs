//! The admin operations on a real service in a temporary directory (no network).

use std::sync::Arc;

use bytes::Bytes;
use pb::modify_column_families_request::{modification::Mod, Modification};
use strata_engine::{Cell, Durability, Get};
use strata_server::{ServiceOptions, TableName};

use super::*;

const PARENT: &str = "projects/p/instances/ns";
const NAME: &str = "projects/p/instances/ns/tables/t";

fn open(dir: &std::path::Path) -> Arc<Service> {
    Service::open(ServiceOptions::new(dir)).unwrap()
}

fn versions(n: i32) -> pb::ColumnFamily {
    pb::ColumnFamily {
        gc_rule: Some(pb::GcRule {
            rule: Some(pb::gc_rule::Rule::MaxNumVersions(n)),
        }),
        value_type: None,
    }
}

fn create_request(
    families: &[(&str, pb::ColumnFamily)],
    splits: &[&str],
) -> pb::CreateTableRequest {
    pb::CreateTableRequest {
        parent: PARENT.into(),
        table_id: "t".into(),
        table: Some(pb::Table {
            column_families: families
                .iter()
                .map(|(id, f)| (id.to_string(), f.clone()))
                .collect(),
            ..Default::default()
        }),
        initial_splits: splits
            .iter()
            .map(|k| pb::create_table_request::Split {
                key: Bytes::from(k.to_string()),
            })
            .collect(),
    }
}

fn get(service: &Service, view: pb::table::View) -> pb::Table {
    let request = pb::GetTableRequest {
        name: NAME.into(),
        view: view as i32,
    };
    tables::get(service, &request).unwrap()
}

fn hbase_name() -> TableName {
    TableName::parse("ns:t").unwrap()
}

#[test]
fn create_makes_the_namespace_families_and_regions() {
    let dir = tempfile::tempdir().unwrap();
    let service = open(dir.path());
    let created = tables::create(
        &service,
        &create_request(&[("cf", versions(2))], &["m", "c", "m"]),
    )
    .unwrap();
    assert_eq!(created.name, NAME);
    assert!(service
        .admin()
        .list_namespaces()
        .contains(&"ns".to_string()));
    let starts: Vec<Bytes> = service
        .admin()
        .table_regions(&hbase_name())
        .unwrap()
        .into_iter()
        .map(|r| r.start_key)
        .collect();
    assert_eq!(
        starts,
        vec![Bytes::new(), Bytes::from("c"), Bytes::from("m")]
    );
    let again = tables::create(&service, &create_request(&[("cf", versions(2))], &[]));
    assert_eq!(again.unwrap_err().code(), tonic::Code::AlreadyExists);
    let schema = get(&service, pb::table::View::Unspecified);
    assert_eq!(schema.column_families["cf"], versions(2));
    assert!(schema.cluster_states.is_empty());
    let name_only = get(&service, pb::table::View::NameOnly);
    assert!(name_only.column_families.is_empty());
    let full = get(&service, pb::table::View::Full);
    assert_eq!(full.cluster_states.len(), 1);
    assert_eq!(full.column_families.len(), 1);
}

#[test]
fn refused_creates_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let service = open(dir.path());
    let mut request = create_request(&[("cf", versions(1))], &[""]);
    let err = tables::create(&service, &request).unwrap_err();
    assert!(
        err.message().starts_with("initial_splits[0].key:"),
        "{err:?}"
    );
    request = create_request(&[("cf", versions(1))], &[]);
    request.table.as_mut().unwrap().deletion_protection = true;
    let err = tables::create(&service, &request).unwrap_err();
    assert!(
        err.message().starts_with("table.deletion_protection:"),
        "{err:?}"
    );
    request = create_request(&[("cf", versions(-3))], &[]);
    let err = tables::create(&service, &request).unwrap_err();
    assert!(
        err.message()
            .starts_with("table.column_families[\"cf\"].gc_rule.max_num_versions:"),
        "{err:?}"
    );
    assert!(service.admin().list_tables().is_empty());
    assert!(!service
        .admin()
        .list_namespaces()
        .contains(&"ns".to_string()));
}

#[test]
fn family_changes_keep_data_and_the_table_enabled() {
    let dir = tempfile::tempdir().unwrap();
    let service = open(dir.path());
    tables::create(&service, &create_request(&[("cf", versions(1))], &[])).unwrap();
    let t = hbase_name();
    let put = Cell::put("r", "cf", "q", 5, "v");
    service
        .rows()
        .mutate(&t, vec![put], Durability::SyncWal)
        .unwrap();
    let modification = |id: &str, m: Mod| Modification {
        id: id.into(),
        update_mask: None,
        r#mod: Some(m),
    };
    let mods = [
        modification("new", Mod::Create(versions(3))),
        modification("cf", Mod::Update(versions(4))),
    ];
    let ops = families::plan(
        &t,
        &service.admin().describe_table(&t).unwrap().families,
        &mods,
    )
    .unwrap();
    families::apply(&service, &t, ops).unwrap();
    assert!(service.admin().is_table_enabled(&t).unwrap());
    let row = service.rows().get(&t, &Get::new("r")).unwrap().unwrap();
    assert_eq!(row.cells[0].value, Bytes::from("v"));
    let schema = get(&service, pb::table::View::SchemaView);
    assert_eq!(schema.column_families["new"], versions(3));
    assert_eq!(schema.column_families["cf"], versions(4));
}

#[test]
fn consistency_tokens_belong_to_their_table() {
    let dir = tempfile::tempdir().unwrap();
    let service = open(dir.path());
    tables::create(&service, &create_request(&[("cf", versions(1))], &[])).unwrap();
    let t = hbase_name();
    let token = consistency::generate(&service, &t).unwrap();
    assert!(consistency::check(&service, &t, &token).unwrap());
    let other = TableName::parse("ns:other").unwrap();
    assert_eq!(
        consistency::check(&service, &t, "strata-consistent:ns:other")
            .unwrap_err()
            .code(),
        tonic::Code::InvalidArgument
    );
    assert_eq!(
        consistency::generate(&service, &other).unwrap_err().code(),
        tonic::Code::NotFound
    );
}

#[test]
fn list_tables_pages_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    let service = open(dir.path());
    for id in ["c", "a", "b"] {
        let mut request = create_request(&[("cf", versions(1))], &[]);
        request.table_id = id.into();
        tables::create(&service, &request).unwrap();
    }
    let mut request = pb::ListTablesRequest {
        parent: PARENT.into(),
        view: 0,
        page_size: 2,
        page_token: String::new(),
    };
    let first = tables::list(&service, &request).unwrap();
    let ids: Vec<&str> = first
        .tables
        .iter()
        .map(|t| t.name.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(first.next_page_token, "b");
    request.page_token = first.next_page_token;
    let second = tables::list(&service, &request).unwrap();
    assert_eq!(second.tables.len(), 1);
    assert!(second.next_page_token.is_empty());
    request.page_size = -1;
    assert_eq!(
        tables::list(&service, &request).unwrap_err().code(),
        tonic::Code::InvalidArgument
    );
}

#[test]
fn dropping_all_data_keeps_the_splits_and_the_state() {
    let dir = tempfile::tempdir().unwrap();
    let service = open(dir.path());
    tables::create(&service, &create_request(&[("cf", versions(1))], &["m"])).unwrap();
    let t = hbase_name();
    service
        .rows()
        .mutate(
            &t,
            vec![Cell::put("z", "cf", "q", 1, "v")],
            Durability::SyncWal,
        )
        .unwrap();
    let all = pb::drop_row_range_request::Target::DeleteAllDataFromTable(true);
    drop_range::drop_range(&service, &t, Some(&all)).unwrap();
    assert!(service.rows().get(&t, &Get::new("z")).unwrap().is_none());
    assert_eq!(service.admin().table_regions(&t).unwrap().len(), 2);
    assert!(service.admin().is_table_enabled(&t).unwrap());
    let empty = pb::drop_row_range_request::Target::RowKeyPrefix(Bytes::new());
    let err = drop_range::drop_range(&service, &t, Some(&empty)).unwrap_err();
    assert!(err.message().starts_with("row_key_prefix:"));
}

/// `union [intersection [max_num_versions 2, max_age 1h], max_num_versions 5]`: its first
/// member is not the versions part, so only a rule kept as given reads back in this order.
fn union_intersection_first() -> pb::ColumnFamily {
    use pb::gc_rule::{Intersection, Rule, Union};
    let rule = |r| pb::GcRule { rule: Some(r) };
    let age = rule(Rule::MaxAge(prost_types::Duration {
        seconds: 3600,
        nanos: 0,
    }));
    let intersection = rule(Rule::Intersection(Intersection {
        rules: vec![rule(Rule::MaxNumVersions(2)), age],
    }));
    pb::ColumnFamily {
        gc_rule: Some(rule(Rule::Union(Union {
            rules: vec![intersection, rule(Rule::MaxNumVersions(5))],
        }))),
        value_type: None,
    }
}

#[test]
fn gc_rules_read_back_as_created_after_a_restart_until_hbase_changes_them() {
    let dir = tempfile::tempdir().unwrap();
    let service = open(dir.path());
    let given = union_intersection_first();
    tables::create(&service, &create_request(&[("cf", given.clone())], &[])).unwrap();
    assert_eq!(
        get(&service, pb::table::View::Full).column_families["cf"],
        given
    );
    service.close().unwrap();
    drop(service);

    let service = open(dir.path());
    assert_eq!(
        get(&service, pb::table::View::Full).column_families["cf"],
        given
    );
    // An HBase API changes VERSIONS, keeping the family's other fields (as Thrift does).
    let t = hbase_name();
    let mut family = service.admin().describe_table(&t).unwrap().families[0].clone();
    family.max_versions = 4;
    service
        .admin()
        .alter_table(&t, strata_server::AlterOp::ModifyFamily(family))
        .unwrap();
    let derived = &get(&service, pb::table::View::Full).column_families["cf"];
    let Some(pb::gc_rule::Rule::Union(union)) =
        derived.gc_rule.as_ref().and_then(|r| r.rule.as_ref())
    else {
        panic!("{derived:?}")
    };
    assert_eq!(
        union.rules[0].rule,
        Some(pb::gc_rule::Rule::MaxNumVersions(4))
    );
}
