//! The service's limits through the gRPC API: a mutation over `grpc_max_value_bytes` (the
//! Bigtable API's own value limit) or `max_row_key_bytes` is INVALID_ARGUMENT naming the
//! config key, nothing is written, and the server keeps serving.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bytes::Bytes;
use common::TestServer;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::bigtable_client::BigtableClient;
use strata_engine::{FamilyOptions, Get};
use strata_grpc::GrpcLimits;
use strata_server::TableName;
use tonic::transport::Channel;

const TABLE: &str = "projects/p/instances/default/tables/t";

async fn start() -> (TestServer, BigtableClient<Channel>) {
    let server = TestServer::start(GrpcLimits::default(), |options| {
        options.limits.grpc_max_value_bytes = 1024;
        options.limits.max_value_bytes = 16;
        options.limits.max_row_key_bytes = 64;
    })
    .await;
    let table = TableName::parse("t").unwrap();
    server
        .service
        .admin()
        .create_table(&table, vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let client = server.client().await;
    (server, client)
}

fn set_cell(row: &[u8], value: Vec<u8>) -> pb::MutateRowRequest {
    let set = pb::mutation::SetCell {
        family_name: "cf".into(),
        column_qualifier: Bytes::from_static(b"q"),
        timestamp_micros: 1000,
        value: value.into(),
    };
    pb::MutateRowRequest {
        table_name: TABLE.into(),
        row_key: Bytes::copy_from_slice(row),
        mutations: vec![pb::Mutation {
            mutation: Some(pb::mutation::Mutation::SetCell(set)),
        }],
        ..Default::default()
    }
}

fn stored(server: &TestServer, row: &str) -> bool {
    let table = TableName::parse("t").unwrap();
    server
        .service
        .rows()
        .get(&table, &Get::new(row.to_string()))
        .unwrap()
        .is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn value_over_grpc_max_value_bytes_is_invalid_argument_naming_the_key() {
    let (server, mut client) = start().await;
    // Over the HBase APIs' 16 bytes but within gRPC's own 1024: accepted.
    client
        .mutate_row(set_cell(b"mid", vec![1; 100]))
        .await
        .unwrap();
    let status = client
        .mutate_row(set_cell(b"big", vec![1; 1025]))
        .await
        .err()
        .unwrap();
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
    assert!(
        status.message().contains("limits.grpc_max_value_bytes"),
        "{status:?}"
    );
    assert!(!stored(&server, "big"));
    client
        .mutate_row(set_cell(b"ok", vec![1; 10]))
        .await
        .unwrap();
    assert!(stored(&server, "ok"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_key_over_max_row_key_bytes_fails_its_entry_in_mutate_rows() {
    let (server, mut client) = start().await;
    let entry = |row: &[u8]| pb::mutate_rows_request::Entry {
        row_key: Bytes::copy_from_slice(row),
        mutations: set_cell(row, vec![1]).mutations,
        ..Default::default()
    };
    let request = pb::MutateRowsRequest {
        table_name: TABLE.into(),
        entries: vec![entry(&[b'k'; 65])],
        ..Default::default()
    };
    let mut stream = client.mutate_rows(request).await.unwrap().into_inner();
    let reply = stream.message().await.unwrap().unwrap();
    let status = reply.entries[0].status.as_ref().unwrap();
    assert_eq!(
        status.code,
        tonic::Code::InvalidArgument as i32,
        "{status:?}"
    );
    assert!(
        status.message.contains("limits.max_row_key_bytes"),
        "{status:?}"
    );
    client.mutate_row(set_cell(b"ok", vec![1])).await.unwrap();
    assert!(stored(&server, "ok"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_over_grpc_max_request_bytes_is_out_of_range() {
    let limits = GrpcLimits {
        max_request_bytes: 4096,
        ..GrpcLimits::default()
    };
    let server = TestServer::start(limits, |_| {}).await;
    let table = TableName::parse("t").unwrap();
    server
        .service
        .admin()
        .create_table(&table, vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let mut client = server.client().await;
    // tonic refuses the message before it is decoded, in its own words; the server appends
    // the config key (`size_limit_message.rs`).
    let status = client
        .mutate_row(set_cell(b"big", vec![1; 8192]))
        .await
        .err()
        .unwrap();
    assert_eq!(status.code(), tonic::Code::OutOfRange, "{status:?}");
    assert!(status.message().contains("4096"), "{status:?}");
    assert!(
        status
            .message()
            .ends_with("(limits.grpc_max_request_bytes)"),
        "{status:?}"
    );
    assert!(!stored(&server, "big"));
    client
        .mutate_row(set_cell(b"ok", vec![1; 100]))
        .await
        .unwrap();
    assert!(stored(&server, "ok"));
    server.stop().await;
}
