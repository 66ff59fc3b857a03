//! The framed protocol as `docs/format.md` specifies it, spoken by hand: bad frames and
//! bad handshakes get a clear error answer and never stop the server, and connections
//! over the limit are refused.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test harness: a failed setup should panic

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use common::{local_value, put, served, write};
use prost::Message;
use strata_engine::Get;
use strata_peer::convert;
use strata_peer::messages as m;
use strata_peer::{PeerClient, ServeOptions};
use strata_server::remote::RegionPeer;
use strata_server::ServiceError;

/// A connection whose handshake is done: the server's hello and "accepted" read, ours sent.
fn raw(addr: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut hello = [0u8; 13];
    stream.read_exact(&mut hello).unwrap();
    assert_eq!(&hello, b"STRPEER\x03\x01\x00\x00\x00\x00");
    stream.write_all(b"STRPEER\x03").unwrap();
    stream
}

/// The next answer frame: its status byte and payload.
fn answer(stream: &mut TcpStream) -> (u8, Vec<u8>) {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    stream.read_exact(&mut body).unwrap();
    (body[0], body[1..].to_vec())
}

/// The message of an error answer.
fn error_answer(stream: &mut TcpStream) -> String {
    let (status, payload) = answer(stream);
    assert_eq!(status, 1, "an error answer");
    m::ErrorDetail::decode(payload.as_slice()).unwrap().message
}

fn closed(stream: &mut TcpStream) -> bool {
    matches!(stream.read(&mut [0u8; 1]), Ok(0))
}

fn frame(method: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = ((payload.len() + 1) as u32).to_le_bytes().to_vec();
    frame.push(method);
    frame.extend_from_slice(payload);
    frame
}

#[test]
fn malformed_and_oversize_frames_get_an_error_and_the_server_serves_on() {
    let s = served(ServeOptions::default());
    let client = PeerClient::new(&s.addr).unwrap();
    client
        .mutate(&s.peer_table, put("k", "v"), write())
        .unwrap();

    // A request that is not a message of its method, and an unknown method: an error
    // each, and the connection (whose framing is intact) serves the next request.
    let mut conn = raw(&s.addr);
    conn.write_all(&frame(1, &[0xff, 0xff, 0xff])).unwrap();
    let message = error_answer(&mut conn);
    assert!(message.contains("malformed Get request"), "{message}");
    conn.write_all(&frame(99, &[])).unwrap();
    let message = error_answer(&mut conn);
    assert!(
        message.contains("unknown internal RPC method code 99"),
        "{message}"
    );
    let get = m::GetRequest {
        table: convert::table_to_msg(&common::table()),
        schema: s.peer_table.schema,
        get: Some(convert::get_to_msg(&Get::new("k"))),
    };
    conn.write_all(&frame(1, &get.encode_to_vec())).unwrap();
    let (status, payload) = answer(&mut conn);
    assert_eq!(status, 0);
    let row = m::GetResponse::decode(payload.as_slice())
        .unwrap()
        .row
        .unwrap();
    assert_eq!(row.cells[0].value.as_ref(), b"v");

    // A length over the limit: an error, then the connection is closed.
    let mut conn = raw(&s.addr);
    conn.write_all(&u32::MAX.to_le_bytes()).unwrap();
    let message = error_answer(&mut conn);
    assert!(
        message.contains("over the limit of 268435457 bytes"),
        "{message}"
    );
    assert!(closed(&mut conn));
    // A length of zero, likewise.
    let mut conn = raw(&s.addr);
    conn.write_all(&[0, 0, 0, 0]).unwrap();
    let message = error_answer(&mut conn);
    assert!(message.contains("length 0"), "{message}");
    assert!(closed(&mut conn));
    // A frame cut short by the client's end: the server just drops the connection.
    let mut conn = raw(&s.addr);
    conn.write_all(&[9, 0, 0, 0, 1, 2]).unwrap();
    conn.shutdown(std::net::Shutdown::Write).unwrap();
    assert!(closed(&mut conn));

    // Meanwhile the pooled client is served as before.
    let got = client.get(&s.peer_table, &Get::new("k")).unwrap().unwrap();
    assert_eq!(got.cells[0].value.as_ref(), b"v");
}

#[test]
fn a_client_that_is_not_a_peer_is_refused_clearly() {
    let s = served(ServeOptions::default());
    let mut conn = TcpStream::connect(&s.addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut hello = [0u8; 13];
    conn.read_exact(&mut hello).unwrap();
    conn.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let message = error_answer(&mut conn);
    assert!(
        message.contains("not a Strata internal RPC client of version 3"),
        "{message}"
    );
    assert!(closed(&mut conn));
    // A client of another version is told so as well.
    let mut conn = TcpStream::connect(&s.addr).unwrap();
    conn.read_exact(&mut hello).unwrap();
    conn.write_all(b"STRPEER\x01").unwrap();
    let message = error_answer(&mut conn);
    assert!(message.contains("\"STRPEER\\u{1}\""), "{message}");
}

/// A server on `listener` that answers every connection with `greeting`.
fn fake_server(greeting: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    strata_runtime::thread::spawn("fake-server", move || {
        for mut stream in listener.incoming().flatten() {
            let _ = stream.write_all(greeting);
            // Read what the client sends until it closes, so that nothing is reset.
            let _ = std::io::copy(&mut stream, &mut std::io::sink());
        }
    })
    .unwrap();
    addr
}

#[test]
fn a_server_that_is_not_a_peer_of_this_version_is_reported_clearly() {
    let cases: [(&'static [u8], &str); 2] = [
        (
            b"HTTP/1.1 400 Bad Request\r\n\r\n",
            "not a Strata peer server",
        ),
        (b"STRPEER\x02", "the peer speaks internal RPC version 2"),
    ];
    for (greeting, expected) in cases {
        let addr = fake_server(greeting);
        let client = PeerClient::with_deadline(&addr, Duration::from_secs(5)).unwrap();
        let err = client.get(&common_table(), &Get::new("k")).unwrap_err();
        match &err {
            ServiceError::PeerUnavailable { reason, unsent, .. } => {
                assert!(reason.contains(expected), "{reason}");
                assert!(*unsent, "nothing was sent: {err:?}");
            }
            _ => panic!("{err:?}"),
        }
    }
}

/// An owner of this version answering an error whose kind this build does not know (a
/// newer kind): the forwarding server reports it with the code and the owner's message,
/// as the peer failing to answer, and never panics.
#[test]
fn an_error_answer_of_an_unknown_kind_is_reported_with_its_code_and_message() {
    let detail = m::ErrorDetail {
        kind: 99,
        message: "a kind from the future".into(),
        ..Default::default()
    }
    .encode_to_vec();
    let mut greeting = strata_peer::wire::HELLO.to_vec();
    greeting.extend_from_slice(&[1, 0, 0, 0, 0]); // accepted
    greeting.extend_from_slice(&(detail.len() as u32 + 1).to_le_bytes());
    greeting.push(1); // an error answer to the request the client will send
    greeting.extend_from_slice(&detail);
    let addr = fake_server(Box::leak(greeting.into_boxed_slice()));
    let client = PeerClient::with_deadline(&addr, Duration::from_secs(5)).unwrap();
    let err = client.get(&common_table(), &Get::new("k")).unwrap_err();
    match &err {
        ServiceError::PeerUnavailable { reason, unsent, .. } => {
            assert!(
                reason.contains("code 99") && reason.contains("a kind from the future"),
                "{reason}"
            );
            assert!(!*unsent, "the owner had the request: {err:?}");
        }
        _ => panic!("{err:?}"),
    }
}

fn common_table() -> strata_server::remote::PeerTable {
    strata_server::remote::PeerTable {
        name: common::table(),
        schema: 0,
    }
}

#[test]
#[allow(clippy::disallowed_methods)] // waits for a real server thread to end
fn connections_over_the_limit_are_refused_with_a_clear_error() {
    let options = ServeOptions {
        max_connections: 2,
        ..ServeOptions::default()
    };
    let s = served(options);
    let first = raw(&s.addr);
    let _second = raw(&s.addr);
    let client = PeerClient::new(&s.addr).unwrap();
    let err = client
        .mutate(&s.peer_table, put("k", "v"), write())
        .unwrap_err();
    match &err {
        ServiceError::PeerUnavailable { reason, unsent, .. } => {
            assert!(
                reason.contains("too many connections") && reason.contains("at most 2"),
                "{reason}"
            );
            assert!(*unsent, "refused before the request: {err:?}");
        }
        _ => panic!("{err:?}"),
    }
    assert_eq!(local_value(&s.service, "k"), None);
    // One connection closes: a new one is served once its thread has ended.
    drop(first);
    let mut served_again = false;
    for _ in 0..200 {
        if client.mutate(&s.peer_table, put("k", "v"), write()).is_ok() {
            served_again = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(served_again);
    assert_eq!(local_value(&s.service, "k").unwrap().as_ref(), b"v");
}
