//! Hostile gRPC clients: a connection that sends half the HTTP/2 preface and goes silent, one
//! that trickles the preface byte by byte (slow-loris), and one that stalls halfway through a
//! frame after a complete preface. Each must be closed by the server within a bounded time,
//! and its connection slot freed (the open-connections gauge returns to zero), while a normal
//! client keeps being served.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

mod common;

use std::time::Duration;

use common::TestServer;
use strata_grpc::GrpcLimits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

fn short_limits() -> GrpcLimits {
    GrpcLimits {
        handshake_timeout: Some(Duration::from_millis(500)),
        keepalive_interval: Some(Duration::from_millis(300)),
        keepalive_timeout: Duration::from_millis(300),
        ..GrpcLimits::default()
    }
}

/// How long the server may take to close a hostile connection under `short_limits`.
const BOUND: Duration = Duration::from_secs(5);

/// Reads (and discards) until the server closes the connection; returns how long it took.
/// Fails if it stays open past `BOUND`.
async fn closed_by_server(stream: &mut TcpStream) -> Duration {
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        let left = BOUND.saturating_sub(start.elapsed());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => panic!("the server kept the connection open for {BOUND:?}"),
            Ok(Ok(0)) | Ok(Err(_)) => return start.elapsed(),
            Ok(Ok(_)) => {} // the server's SETTINGS, pings, GOAWAY
        }
    }
}

/// A well-behaved client: a table created over the service, then a gRPC round trip.
async fn normal_request_succeeds(server: &TestServer) {
    use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
    let mut client = server.client().await;
    let request = pb::SampleRowKeysRequest {
        table_name: "projects/p/instances/default/tables/absent".into(),
        ..Default::default()
    };
    let status = client.sample_row_keys(request).await.err().unwrap();
    assert_eq!(status.code(), tonic::Code::NotFound, "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_a_preface_then_silence_is_closed() {
    let server = TestServer::start(short_limits(), |_| {}).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let connected = Instant::now();
    stream.write_all(&PREFACE[..10]).await.unwrap();
    server.wait_for_connections(1, BOUND).await;
    closed_by_server(&mut stream).await;
    // Not before the deadline: the server waited for the rest of the preface.
    let took = connected.elapsed();
    assert!(
        took >= Duration::from_millis(450),
        "closed too early: {took:?}"
    );
    server.wait_for_connections(0, BOUND).await;
    normal_request_succeeds(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preface_trickled_byte_by_byte_is_closed() {
    let server = TestServer::start(short_limits(), |_| {}).await;
    let stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    // One byte every 100 ms: the whole preface would take 2.4 s, over the 0.5 s deadline.
    let trickle = tokio::spawn(async move {
        for b in PREFACE {
            if writer.write_all(&[*b]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // Keep the write half open: only the server may end the connection.
        tokio::time::sleep(BOUND * 2).await;
    });
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(BOUND, reader.read(&mut buf)).await {
            Err(_) => panic!("the server kept a slow-loris connection open"),
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(_)) => {}
        }
    }
    assert!(
        start.elapsed() < Duration::from_millis(2400),
        "{:?}",
        start.elapsed()
    );
    trickle.abort();
    server.wait_for_connections(0, BOUND).await;
    normal_request_succeeds(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_stalled_halfway_after_the_preface_is_closed() {
    let server = TestServer::start(short_limits(), |_| {}).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(PREFACE).await.unwrap();
    // An empty SETTINGS frame, then the first 5 of 9 header bytes of a HEADERS frame: the
    // server can never parse a ping acknowledgement from this client.
    stream
        .write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0])
        .await
        .unwrap();
    stream.write_all(&[0, 0, 10, 1, 4]).await.unwrap();
    server.wait_for_connections(1, BOUND).await;
    closed_by_server(&mut stream).await;
    server.wait_for_connections(0, BOUND).await;
    normal_request_succeeds(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_healthy_client_is_kept_across_keepalives() {
    use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
    let server = TestServer::start(short_limits(), |_| {}).await;
    let mut client = server.client().await;
    let request = || pb::SampleRowKeysRequest {
        table_name: "projects/p/instances/default/tables/absent".into(),
        ..Default::default()
    };
    client.sample_row_keys(request()).await.err().unwrap();
    server.wait_for_connections(1, BOUND).await;
    // Several keep-alive rounds: the client answers the pings, so it stays connected.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(server.open_connections(), 1);
    let status = client.sample_row_keys(request()).await.err().unwrap();
    assert_eq!(status.code(), tonic::Code::NotFound);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_grpc_max_connections_are_closed_at_once() {
    let limits = GrpcLimits {
        max_connections: 2,
        ..GrpcLimits::default()
    };
    let server = TestServer::start(limits, |_| {}).await;
    let first = TcpStream::connect(server.addr).await.unwrap();
    let second = TcpStream::connect(server.addr).await.unwrap();
    server.wait_for_connections(2, BOUND).await;
    let mut third = TcpStream::connect(server.addr).await.unwrap();
    let took = closed_by_server(&mut third).await;
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_eq!(server.open_connections(), 2);
    drop(first);
    server.wait_for_connections(1, BOUND).await;
    normal_request_succeeds(&server).await;
    drop(second);
    server.stop().await;
}
