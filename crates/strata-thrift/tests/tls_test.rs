//! The Thrift port over TLS: a client that trusts the server's CA gets an answer to a
//! binary-protocol call inside TLS; a clear-text call on the same port gets none.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // real time, sockets and files in these tests

use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::ServerName;
use strata_server::{Service, ServiceOptions};
use strata_thrift::{ConnectionCount, ThriftLimits};
use strata_tls::test_support::TestCa;
use strata_tls::{TlsFiles, TlsListener};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn certificates(dir: &std::path::Path) -> (TlsFiles, TestCa) {
    let ca = TestCa::new("test CA");
    (ca.write_server_files(dir), ca)
}

/// `getTableNames()` in the strict binary protocol, buffered (no frame), sequence id 7.
fn get_table_names() -> Vec<u8> {
    let mut call = vec![0x80, 0x01, 0x00, 0x01]; // version 1, CALL
    call.extend_from_slice(&13u32.to_be_bytes());
    call.extend_from_slice(b"getTableNames");
    call.extend_from_slice(&7u32.to_be_bytes());
    call.push(0x00); // the arguments struct ends at once
    call
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thrift_call_is_answered_over_tls_and_not_in_clear_text() {
    let dir = tempfile::tempdir().unwrap();
    let (files, ca) = certificates(dir.path());
    let service = Service::open(ServiceOptions::new(dir.path().join("data"))).unwrap();
    let config = strata_tls::server_config(&files, &[], strata_runtime::clock::system()).unwrap();
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let connections = ConnectionCount::shared(
        service
            .connections()
            .counter(strata_server::connections::Api::Thrift),
    );
    tokio::spawn(strata_thrift::serve_tls_listener_with(
        TlsListener::new(tcp, config),
        Arc::clone(&service),
        ThriftLimits::default(),
        connections,
        std::future::pending(),
    ));

    let connector = tokio_rustls::TlsConnector::from(ca.client_config(&[], None));
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    tls.write_all(&get_table_names()).await.unwrap();
    let mut reply = [0u8; 21];
    tokio::time::timeout(Duration::from_secs(10), tls.read_exact(&mut reply))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&reply[..4], &[0x80, 0x01, 0x00, 0x02], "a REPLY: {reply:?}");
    assert_eq!(&reply[8..21], b"getTableNames");

    let mut plain = tokio::net::TcpStream::connect(addr).await.unwrap();
    plain.write_all(&get_table_names()).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(15), plain.read_to_end(&mut answer)).await;
    assert!(
        !answer.starts_with(&[0x80, 0x01, 0x00, 0x02]),
        "no clear-text reply: {read:?} {answer:?}"
    );
}
