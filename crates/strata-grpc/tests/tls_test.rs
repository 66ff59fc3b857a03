//! The Bigtable API over TLS: a client that trusts the server's CA writes and reads a row
//! over HTTP/2 inside TLS (ALPN `h2`), and a clear-text client gets no answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // real time, sockets and files in these tests

mod common;

use std::sync::Arc;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::bigtable_client::BigtableClient;
use strata_engine::FamilyOptions;
use strata_server::{Service, ServiceOptions, TableName};
use strata_tls::test_support::TestCa;
use strata_tls::{TlsFiles, TlsListener};

/// A CA and a `localhost` certificate it signed, written to `dir`; answers the CA.
fn certificates(dir: &std::path::Path) -> (TlsFiles, TestCa) {
    let ca = TestCa::new("test CA");
    (ca.write_server_files(dir), ca)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_written_and_read_over_tls_and_no_answer_in_clear_text() {
    let dir = tempfile::tempdir().unwrap();
    let (files, ca) = certificates(dir.path());
    let service = Service::open(ServiceOptions::new(dir.path().join("data"))).unwrap();
    let table = TableName::parse("t").unwrap();
    service
        .admin()
        .create_table(&table, vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let config =
        strata_tls::server_config(&files, &[b"h2"], strata_runtime::clock::system()).unwrap();
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let serving = Arc::clone(&service);
    tokio::spawn(strata_grpc::serve_tls_listener_with(
        TlsListener::new(tcp, config),
        serving,
        strata_grpc::GrpcLimits::default(),
        std::future::pending(),
    ));

    let mut client = common::tls_client(addr, &ca, None).await;
    let name = "projects/p/instances/default/tables/t".to_string();
    let set = pb::mutation::SetCell {
        family_name: "cf".into(),
        column_qualifier: Bytes::from_static(b"q"),
        timestamp_micros: -1,
        value: Bytes::from_static(b"over tls"),
    };
    let write = pb::MutateRowRequest {
        table_name: name.clone(),
        row_key: Bytes::from_static(b"r"),
        mutations: vec![pb::Mutation {
            mutation: Some(pb::mutation::Mutation::SetCell(set)),
        }],
        ..Default::default()
    };
    client.mutate_row(write).await.unwrap();
    let read = pb::ReadRowsRequest {
        table_name: name.clone(),
        rows: Some(pb::RowSet {
            row_keys: vec![Bytes::from_static(b"r")],
            row_ranges: vec![],
        }),
        ..Default::default()
    };
    let mut stream = client.read_rows(read.clone()).await.unwrap().into_inner();
    let mut values = Vec::new();
    while let Some(reply) = stream.message().await.unwrap() {
        values.extend(reply.chunks.into_iter().map(|c| c.value));
    }
    assert_eq!(values, vec![Bytes::from_static(b"over tls")]);

    let plain = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .timeout(std::time::Duration::from_secs(5))
        .connect_timeout(std::time::Duration::from_secs(5));
    let refused = match plain.connect().await {
        Err(_) => true,
        Ok(channel) => BigtableClient::new(channel).read_rows(read).await.is_err(),
    };
    assert!(refused, "a clear-text client gets no answer");
}
