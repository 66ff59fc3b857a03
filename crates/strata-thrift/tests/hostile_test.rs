//! Hostile clients: half a frame then silence, bytes trickled one at a time (slow-loris), a
//! flood of idle connections, scanners opened and abandoned. The server must close the
//! offenders within its limits (`ThriftLimits`, the scanner lease) and keep serving everyone
//! else with bounded latency.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::t;
use strata_server::{Service, ServiceOptions};
use strata_thrift::codec::MakeCompatCodec;
use strata_thrift::gen::volo_gen::hbase::{ColumnDescriptor, HbaseClientBuilder};
use strata_thrift::{ConnectionCount, ThriftLimits};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use volo_thrift::codec::default::{framed::MakeFramedCodec, DefaultMakeCodec};
use volo_thrift::{MaybeException, Protocol};

const READ_TIMEOUT: Duration = Duration::from_millis(600);
const MAX_CONNECTIONS: usize = 6;
const MAX_SCANNERS_PER_CONNECTION: usize = 6;
const SCANNER_LEASE: Duration = Duration::from_millis(400);
/// Slack for a loaded test machine on top of every configured limit.
const SLACK: Duration = Duration::from_secs(3);
/// A well-behaved request must be answered this fast while hostile clients misbehave.
const BOUNDED_LATENCY: Duration = Duration::from_secs(1);

struct Server {
    addr: std::net::SocketAddr,
    service: Arc<Service>,
    connections: ConnectionCount,
    _stop: oneshot::Sender<()>,
    _dir: tempfile::TempDir,
}

async fn start() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path());
    options.scanner_lease = SCANNER_LEASE;
    options.limits.max_scanners_per_client = MAX_SCANNERS_PER_CONNECTION;
    let service = Service::open(options).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let limits = ThriftLimits {
        read_timeout: Some(READ_TIMEOUT),
        max_connections: MAX_CONNECTIONS,
    };
    let connections = ConnectionCount::default();
    let (stop, stopped) = oneshot::channel::<()>();
    let (svc, count) = (Arc::clone(&service), connections.clone());
    tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        strata_thrift::serve_listener_with(listener, svc, limits, count, shutdown)
            .await
            .unwrap();
    });
    Server {
        addr,
        service,
        connections,
        _stop: stop,
        _dir: dir,
    }
}

/// A framed, strict-binary `getTableNames` call (no arguments).
fn get_table_names_frame() -> Vec<u8> {
    let mut msg = Vec::new();
    msg.extend_from_slice(&0x8001_0001u32.to_be_bytes());
    msg.extend_from_slice(&13i32.to_be_bytes());
    msg.extend_from_slice(b"getTableNames");
    msg.extend_from_slice(&1i32.to_be_bytes());
    msg.push(0); // end of the empty argument struct
    let mut frame = (msg.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&msg);
    frame
}

/// One well-behaved call on a fresh connection; returns its latency.
async fn good_call(addr: std::net::SocketAddr) -> Duration {
    let started = Instant::now();
    let mut conn = TcpStream::connect(addr).await.unwrap();
    conn.write_all(&get_table_names_frame()).await.unwrap();
    let mut len = [0u8; 4];
    conn.read_exact(&mut len).await.unwrap();
    let mut reply = vec![0u8; i32::from_be_bytes(len) as usize];
    conn.read_exact(&mut reply).await.unwrap();
    assert_eq!(
        &reply[..4],
        &0x8001_0002u32.to_be_bytes(),
        "a reply message"
    );
    started.elapsed()
}

/// Waits for the server to close `conn`; returns how long that took.
async fn closed_by_server(conn: &mut TcpStream) -> Duration {
    let started = Instant::now();
    let mut buf = [0u8; 64];
    let outcome = tokio::time::timeout(READ_TIMEOUT + SLACK, conn.read(&mut buf)).await;
    match outcome {
        Ok(Ok(0)) | Ok(Err(_)) => started.elapsed(),
        Ok(Ok(n)) => panic!("the server answered {n} bytes to an incomplete request"),
        Err(_) => panic!("the server kept a stalled connection open past its read timeout"),
    }
}

async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + READ_TIMEOUT + SCANNER_LEASE + SLACK;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_a_frame_then_silence_is_closed_after_the_read_timeout() {
    let server = start().await;
    let mut conn = TcpStream::connect(server.addr).await.unwrap();
    let frame = get_table_names_frame();
    conn.write_all(&frame[..frame.len() / 2]).await.unwrap();
    let waited = closed_by_server(&mut conn).await;
    assert!(
        waited >= READ_TIMEOUT - Duration::from_millis(100),
        "closed after {waited:?}, before the read timeout"
    );
    wait_for("the connection slot to be freed", || {
        server.connections.get() == 0
    })
    .await;
    assert!(good_call(server.addr).await < BOUNDED_LATENCY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_loris_is_closed_while_others_are_served() {
    let server = start().await;
    let addr = server.addr;
    let loris = tokio::spawn(async move {
        let mut conn = TcpStream::connect(addr).await.unwrap();
        let started = Instant::now();
        // A whole request at one byte per 100 ms would take far longer than the timeout.
        for byte in get_table_names_frame() {
            if conn.write_all(&[byte]).await.is_err() {
                return started.elapsed();
            }
            let mut buf = [0u8; 8];
            match tokio::time::timeout(Duration::from_millis(100), conn.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => return started.elapsed(),
                Ok(Ok(n)) => panic!("the server answered {n} bytes to a partial request"),
                Err(_) => {} // still open: trickle on
            }
        }
        panic!("the server waited for the whole trickled request");
    });
    let mut worst = Duration::ZERO;
    while !loris.is_finished() {
        worst = worst.max(good_call(addr).await);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let lasted = loris.await.unwrap();
    assert!(
        lasted < READ_TIMEOUT + SLACK,
        "slow-loris lasted {lasted:?}"
    );
    assert!(worst < BOUNDED_LATENCY, "worst latency meanwhile {worst:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_cap_are_refused_and_idle_ones_time_out() {
    let server = start().await;
    let mut idle = Vec::new();
    for _ in 0..MAX_CONNECTIONS {
        idle.push(TcpStream::connect(server.addr).await.unwrap());
    }
    wait_for("every idle connection to be accepted", || {
        server.connections.get() == MAX_CONNECTIONS
    })
    .await;
    // One more is closed at once, long before any read timeout.
    let mut extra = TcpStream::connect(server.addr).await.unwrap();
    let waited = closed_by_server(&mut extra).await;
    assert!(waited < READ_TIMEOUT, "refused only after {waited:?}");
    // The idle ones are closed by the read timeout, and their slots come back.
    for conn in &mut idle {
        closed_by_server(conn).await;
    }
    wait_for("the slots to be freed", || server.connections.get() == 0).await;
    assert!(good_call(server.addr).await < BOUNDED_LATENCY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_scanners_are_closed_after_the_lease() {
    let server = start().await;
    let client = HbaseClientBuilder::new("hbase")
        .address(server.addr)
        .make_codec(DefaultMakeCodec::new(MakeFramedCodec::new(
            MakeCompatCodec::new(Protocol::Binary),
        )))
        .build();
    let family = ColumnDescriptor {
        name: t("cf:"),
        ..Default::default()
    };
    let created = client.create_table(t("s"), Some(vec![family])).await;
    assert!(matches!(created, Ok(MaybeException::Ok(_))));
    for _ in 0..5 {
        let opened = client.scanner_open(t("s"), t(""), None, None).await;
        assert!(matches!(opened, Ok(MaybeException::Ok(_))));
    }
    assert_eq!(server.service.scanners().open_scanner_count(), 5);
    drop(client); // abandoned: never closed, never read again
    let started = Instant::now();
    wait_for("the abandoned scanners to be closed", || {
        server.service.scanners().open_scanner_count() == 0
    })
    .await;
    let waited = started.elapsed();
    assert!(
        waited >= SCANNER_LEASE / 2,
        "closed after {waited:?}, well inside the lease"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_negative_frame_length_is_refused_and_closes_only_that_connection() {
    let server = start().await;
    let mut conn = TcpStream::connect(server.addr).await.unwrap();
    // Frame length -1, then the start of a binary message (so it is detected as framed).
    conn.write_all(&[0xff, 0xff, 0xff, 0xff, 0x80, 0x01, 0x00, 0x01])
        .await
        .unwrap();
    // A framed exception reply says why, then the connection is closed.
    let mut len = [0u8; 4];
    conn.read_exact(&mut len).await.unwrap();
    let mut reply = vec![0u8; i32::from_be_bytes(len) as usize];
    conn.read_exact(&mut reply).await.unwrap();
    assert_eq!(&reply[..4], &0x8001_0003u32.to_be_bytes(), "an exception");
    let reason = String::from_utf8_lossy(&reply);
    assert!(reason.contains("frame of -1 bytes"), "{reason}");
    let waited = closed_by_server(&mut conn).await;
    assert!(waited < READ_TIMEOUT, "closed only by the read timeout");
    wait_for("the connection slot to be freed", || {
        server.connections.get() == 0
    })
    .await;
    assert!(good_call(server.addr).await < BOUNDED_LATENCY);
}

fn framed_client(addr: std::net::SocketAddr) -> strata_thrift::gen::volo_gen::hbase::HbaseClient {
    HbaseClientBuilder::new("hbase")
        .address(addr)
        .make_codec(DefaultMakeCodec::new(MakeFramedCodec::new(
            MakeCompatCodec::new(Protocol::Binary),
        )))
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_cannot_take_every_scanner_slot() {
    let server = start().await;
    let hog = framed_client(server.addr);
    let family = ColumnDescriptor {
        name: t("cf:"),
        ..Default::default()
    };
    let created = hog.create_table(t("s"), Some(vec![family])).await;
    assert!(matches!(created, Ok(MaybeException::Ok(_))));
    let mut ids = Vec::new();
    for _ in 0..MAX_SCANNERS_PER_CONNECTION {
        match hog.scanner_open(t("s"), t(""), None, None).await {
            Ok(MaybeException::Ok(id)) => ids.push(id),
            _ => panic!("a scanner within the cap was refused"),
        }
    }
    match hog.scanner_open(t("s"), t(""), None, None).await {
        Ok(MaybeException::Exception(e)) => {
            let e = format!("{e:?}");
            assert!(e.contains("limits.max_scanners_per_client"), "{e}");
        }
        _ => panic!("one scanner past the cap was not refused with an IOError"),
    }
    // Another connection still gets scanners, and a closed one frees the hog's slot.
    let other = framed_client(server.addr);
    let opened = other.scanner_open(t("s"), t(""), None, None).await;
    assert!(matches!(opened, Ok(MaybeException::Ok(_))));
    let closed = hog.scanner_close(Some(ids[0].clone())).await;
    assert!(matches!(closed, Ok(MaybeException::Ok(()))));
    let reopened = hog.scanner_open(t("s"), t(""), None, None).await;
    assert!(matches!(reopened, Ok(MaybeException::Ok(_))));
}
