//! The connection layer over a real socket: preambles, headers, limits, call ids.

mod common;

use bytes::Bytes;
use common::{start, Client};
use prost::Message;
use strata_hrpc::pb;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn read_to_end(stream: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out).await;
    out
}

#[tokio::test]
async fn the_registry_preamble_gets_the_cluster_id_and_a_close() {
    let server = start().await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(b"Regist").await.unwrap();
    let bytes = read_to_end(&mut stream).await;
    let mut frame = Bytes::from(bytes).slice(4..);
    let header = pb::ResponseHeader::decode_length_delimited(&mut frame).unwrap();
    assert!(header.exception.is_none());
    let body = pb::GetConnectionRegistryResponse::decode_length_delimited(&mut frame).unwrap();
    assert_eq!(body.cluster_id, "test-cluster");
}

#[tokio::test]
async fn an_unknown_preamble_gets_the_expected_header_in_a_fatal_exception() {
    let server = start().await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(b"Securi").await.unwrap();
    let bytes = read_to_end(&mut stream).await;
    let mut frame = Bytes::from(bytes).slice(4..);
    let header = pb::ResponseHeader::decode_length_delimited(&mut frame).unwrap();
    let exception = header.exception.unwrap();
    assert_eq!(
        exception.exception_class_name(),
        "org.apache.hadoop.hbase.ipc.FatalConnectionException"
    );
    assert!(exception.stack_trace().contains("Expected HEADER="));
}

#[tokio::test]
async fn an_unknown_codec_is_refused_at_the_header() {
    let server = start().await;
    let mut client = Client::connect(server.addr, "ClientService", Some("com.example.Codec")).await;
    let answer = client.receive().await.unwrap();
    assert!(answer
        .exception_class()
        .ends_with("UnsupportedCellCodecException"));
    assert!(client.receive().await.is_none(), "the connection closes");
}

#[tokio::test]
async fn registry_calls_name_this_server() {
    let server = start().await;
    let mut client = Client::connect(server.addr, "ClientMetaService", None).await;
    let id: pb::GetClusterIdResponse = client
        .call("GetClusterId", &pb::GetClusterIdRequest {})
        .await
        .decode();
    assert_eq!(id.cluster_id(), "test-cluster");
    let meta: pb::GetMetaRegionLocationsResponse = client
        .call(
            "GetMetaRegionLocations",
            &pb::GetMetaRegionLocationsRequest {},
        )
        .await
        .decode();
    let location = &meta.meta_locations[0];
    assert_eq!(location.region_info.region_id, 1);
    assert_eq!(
        location.server_name.as_ref().unwrap().port(),
        u32::from(server.addr.port())
    );
    let master: pb::GetActiveMasterResponse = client
        .call("GetActiveMaster", &pb::GetActiveMasterRequest {})
        .await
        .decode();
    assert_eq!(master.server_name.unwrap().start_code(), 42);
}

#[tokio::test]
async fn pipelined_calls_are_each_answered_under_their_own_id() {
    let server = start().await;
    let mut client = Client::connect(server.addr, "ClientMetaService", None).await;
    let mut sent = Vec::new();
    for _ in 0..20 {
        sent.push(
            client
                .send("GetClusterId", &pb::GetClusterIdRequest {}, &[])
                .await,
        );
    }
    let mut seen = Vec::new();
    for _ in 0..20 {
        seen.push(client.receive().await.unwrap().header.call_id());
    }
    seen.sort_unstable();
    assert_eq!(seen, sent);
}

#[tokio::test]
async fn an_unknown_method_is_a_do_not_retry_exception_and_the_connection_lives_on() {
    let server = start().await;
    let mut client = Client::connect(server.addr, "ClientService", None).await;
    let answer = client
        .call("BulkLoadHFile", &pb::GetClusterIdRequest {})
        .await;
    let exception = answer.header.exception.unwrap();
    assert_eq!(
        exception.exception_class_name(),
        "org.apache.hadoop.hbase.DoNotRetryIOException"
    );
    assert!(exception.do_not_retry());
    assert!(exception.stack_trace().contains("BulkLoadHFile"));
    let mut meta = Client::connect(server.addr, "ClientMetaService", None).await;
    meta.call("GetClusterId", &pb::GetClusterIdRequest {}).await;
}

#[tokio::test]
async fn an_oversized_frame_closes_the_connection_before_it_is_read() {
    let server = start().await;
    let mut client = Client::connect(server.addr, "ClientService", None).await;
    client.stream.write_u32(u32::MAX).await.unwrap();
    assert!(client.receive().await.is_none());
}

#[tokio::test]
async fn a_malformed_request_header_closes_the_connection() {
    let server = start().await;
    let mut client = Client::connect(server.addr, "ClientService", None).await;
    client.stream.write_u32(3).await.unwrap();
    client.stream.write_all(&[0xff, 0xff, 0xff]).await.unwrap();
    assert!(client.receive().await.is_none());
}
