//! The facade byte for byte, as a ZooKeeper client's socket sees it: the handshake with and
//! without the trailing read-only byte, session expiry and resumption, pings, limits.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)] // real sockets and real time; a failed setup panics

mod common;

use std::time::{Duration, Instant};

use common::*;
use strata_zk::jute::JuteReader;
use strata_zk::protocol::{op, PING_XID};
use strata_zk::records::{ConnectResponse, Stat};
use strata_zk::ZkConfig;

#[tokio::test]
async fn handshake_with_the_read_only_byte_answers_with_one() {
    let server = start(quick_config()).await;
    let mut c = RawClient::open(server.addr).await;
    let request = connect_request(1000, 0, &[0; 16], Some(false));
    assert_eq!(request.len(), 4 + 45);
    c.send(&request).await;
    let body = c.frame().await.unwrap();
    // protocolVersion, timeOut, sessionId, passwd (4 + 16), readOnly.
    assert_eq!(body.len(), 4 + 4 + 8 + 20 + 1);
    assert_eq!(&body[..4], &[0, 0, 0, 0]);
    assert_eq!(&body[4..8], &1000i32.to_be_bytes());
    assert_ne!(&body[8..16], &[0; 8]);
    assert_eq!(&body[16..20], &16i32.to_be_bytes());
    assert_eq!(
        body[36], 0,
        "the facade presents itself as a read-write server"
    );
}

#[tokio::test]
async fn handshake_without_the_read_only_byte_answers_without_one() {
    let server = start(quick_config()).await;
    let mut c = RawClient::open(server.addr).await;
    let request = connect_request(1000, 0, &[], None);
    c.send(&request).await;
    let body = c.frame().await.unwrap();
    assert_eq!(body.len(), 36);
    let response = ConnectResponse::decode(&body).unwrap();
    assert_eq!(response.read_only, None);
    assert_eq!(response.passwd.len(), 16);
    // The session works: a read is answered.
    c.send(&request_exists(1, "/hbase")).await;
    assert_eq!(c.reply().await.0.err, 0);
}

fn request_exists(xid: i32, path: &'static str) -> bytes::Bytes {
    request(xid, op::EXISTS, |w| {
        w.string(path).boolean(false);
    })
}

#[tokio::test]
async fn the_session_timeout_is_clamped_to_the_configured_range() {
    let server = start(quick_config()).await;
    let (_, low) = RawClient::session(server.addr, 1).await;
    let (_, high) = RawClient::session(server.addr, 600_000).await;
    assert_eq!((low.timeout_ms, high.timeout_ms), (300, 2000));
    assert_ne!(low.session_id, high.session_id);
}

#[tokio::test]
async fn a_silent_session_is_closed_after_its_timeout_and_then_expired() {
    let server = start(quick_config()).await;
    let started = Instant::now();
    let (mut c, session) = RawClient::session(server.addr, 300).await;
    assert!(
        c.closed_within(Duration::from_secs(3)).await,
        "silent connection closed"
    );
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(300),
        "closed too early: {waited:?}"
    );

    let mut again = RawClient::open(server.addr).await;
    again
        .send(&connect_request(
            300,
            session.session_id,
            &session.passwd,
            Some(false),
        ))
        .await;
    let response = ConnectResponse::decode(&again.frame().await.unwrap()).unwrap();
    assert_eq!(
        (response.timeout_ms, response.session_id),
        (0, 0),
        "expired"
    );
    assert!(again.closed_within(Duration::from_secs(1)).await);
}

#[tokio::test]
async fn pings_keep_a_session_past_its_timeout() {
    let server = start(quick_config()).await;
    let (mut c, _) = RawClient::session(server.addr, 300).await;
    // Ten pings a third of the timeout apart: a whole second, three timeouts.
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c.send(&request(PING_XID, op::PING, |_| {})).await;
        let (header, body) = c.reply().await;
        assert_eq!((header.xid, header.err), (PING_XID, 0));
        assert!(body.is_empty());
    }
    c.send(&request_exists(2, "/hbase/master")).await;
    assert_eq!(c.reply().await.0.err, 0);
}

#[tokio::test]
async fn a_dropped_connection_resumes_its_session_with_the_same_id() {
    let server = start(quick_config()).await;
    let (c, session) = RawClient::session(server.addr, 2000).await;
    drop(c);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut again = RawClient::open(server.addr).await;
    again
        .send(&connect_request(
            2000,
            session.session_id,
            &session.passwd,
            Some(false),
        ))
        .await;
    let resumed = ConnectResponse::decode(&again.frame().await.unwrap()).unwrap();
    assert_eq!(resumed.session_id, session.session_id);
    assert_eq!(resumed.passwd, session.passwd);
    assert_eq!(resumed.timeout_ms, 2000);
}

#[tokio::test]
async fn close_session_is_acknowledged_and_the_session_cannot_resume() {
    let server = start(quick_config()).await;
    let (mut c, session) = RawClient::session(server.addr, 2000).await;
    c.send(&request(9, op::CLOSE_SESSION, |_| {})).await;
    let (header, _) = c.reply().await;
    assert_eq!((header.xid, header.err), (9, 0));
    assert!(c.closed_within(Duration::from_secs(1)).await);

    let mut again = RawClient::open(server.addr).await;
    again
        .send(&connect_request(
            2000,
            session.session_id,
            &session.passwd,
            Some(false),
        ))
        .await;
    let response = ConnectResponse::decode(&again.frame().await.unwrap()).unwrap();
    assert_eq!(response.session_id, 0);
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order() {
    let server = start(quick_config()).await;
    let (mut c, _) = RawClient::session(server.addr, 2000).await;
    let mut burst = Vec::new();
    burst.extend_from_slice(&request(1, op::GET_DATA, |w| {
        w.string("/hbase/hbaseid").boolean(true);
    }));
    burst.extend_from_slice(&request_exists(2, "/missing"));
    burst.extend_from_slice(&request(3, op::CREATE, |w| {
        w.string("/x").buffer(b"").int(0).int(0);
    }));
    burst.extend_from_slice(&request(4, op::GET_CHILDREN, |w| {
        w.string("/hbase").boolean(false);
    }));
    c.send(&burst).await;

    let (h1, body) = c.reply().await;
    let mut r = JuteReader::new(&body);
    assert_eq!((h1.xid, h1.err), (1, 0));
    assert_eq!(r.buffer("data").unwrap(), CLUSTER_ID);
    assert_eq!(
        Stat::decode(&mut r).unwrap().data_length,
        CLUSTER_ID.len() as i32
    );
    let (h2, _) = c.reply().await;
    assert_eq!((h2.xid, h2.err), (2, -101));
    let (h3, _) = c.reply().await;
    assert_eq!(
        (h3.xid, h3.err),
        (3, -119),
        "a write is refused, the connection stays"
    );
    let (h4, body) = c.reply().await;
    assert_eq!((h4.xid, h4.err), (4, 0));
    assert_eq!(JuteReader::new(&body).int("count").unwrap(), 3);
}

#[tokio::test]
async fn an_oversized_frame_closes_the_connection_unanswered() {
    let config = ZkConfig {
        max_frame_bytes: 1024,
        ..quick_config()
    };
    let server = start(config).await;
    // Before the handshake: only a length prefix, far over the limit.
    let mut c = RawClient::open(server.addr).await;
    c.send(&0x7fff_0000u32.to_be_bytes()).await;
    assert!(c.closed_within(Duration::from_secs(1)).await);
    // After it: one byte over the limit.
    let (mut c, _) = RawClient::session(server.addr, 2000).await;
    c.send(&1025u32.to_be_bytes()).await;
    assert!(c.closed_within(Duration::from_secs(1)).await);
}

#[tokio::test]
async fn malformed_input_closes_the_connection() {
    let server = start(quick_config()).await;
    // A connect request cut inside its password.
    let mut c = RawClient::open(server.addr).await;
    let whole = connect_request(2000, 0, &[0; 16], None);
    let mut cut = ((whole.len() - 4 - 3) as u32).to_be_bytes().to_vec();
    cut.extend_from_slice(&whole[4..whole.len() - 3]);
    c.send(&cut).await;
    assert!(c.closed_within(Duration::from_secs(1)).await);

    // A request too short for its header.
    let (mut c, _) = RawClient::session(server.addr, 2000).await;
    c.send(&[0, 0, 0, 3, 1, 2, 3]).await;
    assert!(c.closed_within(Duration::from_secs(1)).await);

    // A getData whose path length runs past the frame: answered, then closed.
    let (mut c, _) = RawClient::session(server.addr, 2000).await;
    c.send(&request(5, op::GET_DATA, |w| {
        w.int(1000);
    }))
    .await;
    let (header, _) = c.reply().await;
    assert_eq!((header.xid, header.err), (5, -5));
    assert!(c.closed_within(Duration::from_secs(1)).await);
}

#[tokio::test]
async fn connections_over_the_limit_are_closed_and_room_comes_back() {
    let config = ZkConfig {
        max_connections: 2,
        ..quick_config()
    };
    let server = start(config).await;
    let (first, _) = RawClient::session(server.addr, 2000).await;
    let (_second, _) = RawClient::session(server.addr, 2000).await;
    let mut third = RawClient::open(server.addr).await;
    assert!(third.closed_within(Duration::from_secs(1)).await);
    drop(first);
    // The server notices the closed connection, then has room again.
    let mut admitted = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut c = RawClient::open(server.addr).await;
        c.send(&connect_request(2000, 0, &[], Some(false))).await;
        if c.frame().await.is_some() {
            admitted = true;
            break;
        }
    }
    assert!(admitted);
}

#[tokio::test]
async fn a_connection_that_never_finishes_its_handshake_is_closed() {
    let config = ZkConfig {
        handshake_timeout: Duration::from_millis(200),
        ..quick_config()
    };
    let server = start(config).await;
    let mut c = RawClient::open(server.addr).await;
    c.send(&[0, 0, 0, 45, 0]).await;
    assert!(c.closed_within(Duration::from_secs(2)).await);
}

#[tokio::test]
async fn ruok_is_answered_imok() {
    let server = start(quick_config()).await;
    let mut c = RawClient::open(server.addr).await;
    c.send(b"ruok").await;
    let mut answer = Vec::new();
    tokio::io::AsyncReadExt::read_to_end(&mut c.stream, &mut answer)
        .await
        .unwrap();
    assert_eq!(answer, b"imok");
}
