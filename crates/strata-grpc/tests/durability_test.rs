//! A table's DURABILITY (set through the HBase APIs: Bigtable's Table has no such field)
//! applies to every Bigtable write: MutateRow, MutateRows, CheckAndMutateRow and
//! ReadModifyWriteRow. A SKIP_WAL table's writes never reach the WAL; a table without a
//! DURABILITY logs each of them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bytes::Bytes;
use common::TestServer;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::bigtable_client::BigtableClient;
use strata_engine::{FamilyOptions, Get};
use strata_grpc::GrpcLimits;
use strata_server::{TableName, WriteDurability};
use tonic::transport::Channel;

fn table_path(table: &str) -> String {
    format!("projects/p/instances/default/tables/{table}")
}

fn set_cell(qualifier: &'static str, value: &str) -> pb::Mutation {
    let set = pb::mutation::SetCell {
        family_name: "cf".into(),
        column_qualifier: Bytes::from_static(qualifier.as_bytes()),
        timestamp_micros: -1,
        value: Bytes::copy_from_slice(value.as_bytes()),
    };
    pb::Mutation {
        mutation: Some(pb::mutation::Mutation::SetCell(set)),
    }
}

fn delete_column() -> pb::Mutation {
    let delete = pb::mutation::DeleteFromColumn {
        family_name: "cf".into(),
        column_qualifier: Bytes::from_static(b"gone"),
        time_range: None,
    };
    pb::Mutation {
        mutation: Some(pb::mutation::Mutation::DeleteFromColumn(delete)),
    }
}

/// One write of each Bigtable kind to `table`; returns how many there were.
async fn every_kind_of_write(client: &mut BigtableClient<Channel>, table: &str) -> u64 {
    let name = table_path(table);
    let mutate_row = |mutations: Vec<pb::Mutation>| pb::MutateRowRequest {
        table_name: name.clone(),
        row_key: Bytes::from_static(b"a"),
        mutations,
        ..Default::default()
    };
    let puts = vec![set_cell("q", "1"), set_cell("gone", "1")];
    client.mutate_row(mutate_row(puts)).await.unwrap();
    // With a delete (of a stored column) it is a read-modify-write of the row.
    let delete = mutate_row(vec![delete_column()]);
    client.mutate_row(delete).await.unwrap();
    let entry = pb::mutate_rows_request::Entry {
        row_key: Bytes::from_static(b"b"),
        mutations: vec![set_cell("q", "1")],
        ..Default::default()
    };
    let rows = pb::MutateRowsRequest {
        table_name: name.clone(),
        entries: vec![entry],
        ..Default::default()
    };
    let mut stream = client.mutate_rows(rows).await.unwrap().into_inner();
    while let Some(reply) = stream.message().await.unwrap() {
        assert!(reply
            .entries
            .iter()
            .all(|e| e.status.as_ref().unwrap().code == 0));
    }
    let check = pb::CheckAndMutateRowRequest {
        table_name: name.clone(),
        row_key: Bytes::from_static(b"a"),
        true_mutations: vec![set_cell("q", "2")],
        ..Default::default()
    };
    assert!(
        client
            .check_and_mutate_row(check)
            .await
            .unwrap()
            .into_inner()
            .predicate_matched
    );
    let rule = pb::ReadModifyWriteRule {
        family_name: "cf".into(),
        column_qualifier: Bytes::from_static(b"n"),
        rule: Some(pb::read_modify_write_rule::Rule::IncrementAmount(1)),
    };
    let rmw = pb::ReadModifyWriteRowRequest {
        table_name: name,
        row_key: Bytes::from_static(b"c"),
        rules: vec![rule],
        ..Default::default()
    };
    client.read_modify_write_row(rmw).await.unwrap();
    5
}

fn create(server: &TestServer, table: &str, durability: WriteDurability) {
    let name = TableName::parse(table).unwrap();
    let families = vec![FamilyOptions::new("cf")];
    server
        .service
        .admin()
        .create_table_with_durability(&name, families, vec![], durability)
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bigtable_writes_follow_the_tables_durability() {
    let server = TestServer::start(GrpcLimits::default(), |_| {}).await;
    create(&server, "quiet", WriteDurability::SkipWal);
    create(&server, "plain", WriteDurability::UseDefault);
    let mut client = server.client().await;
    let appends = || server.service.engine().wal_stats().appends;

    let before = appends();
    every_kind_of_write(&mut client, "quiet").await;
    assert_eq!(appends(), before, "SKIP_WAL writes were logged");
    let quiet = TableName::parse("quiet").unwrap();
    for row in ["a", "b", "c"] {
        let stored = server.service.rows().get(&quiet, &Get::new(row)).unwrap();
        assert!(stored.is_some(), "row {row} was not written");
    }

    let before = appends();
    let writes = every_kind_of_write(&mut client, "plain").await;
    assert_eq!(appends(), before + writes);
    server.stop().await;
}
