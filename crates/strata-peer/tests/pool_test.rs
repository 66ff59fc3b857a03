//! The client's pooled connections: a connection that dies under a request, many threads
//! at once, and a server that stops and comes back.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests
#![allow(clippy::unwrap_used, clippy::expect_used)] // test harness: a failed setup should panic

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use common::{local_value, put, served, table, write};
use strata_engine::Get;
use strata_peer::{PeerClient, ServeOptions};
use strata_runtime::thread;
use strata_server::remote::RegionPeer;
use strata_server::ServiceError;

/// What the proxy does to the next request it sees (then it relays again).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Cut {
    Nothing,
    /// Closes the client's connection without passing the request on.
    BeforeRequest,
    /// Passes the request on, swallows the answer and closes the client's connection:
    /// the server carried the request out, the client never hears of it.
    AfterAnswer,
}

/// A TCP proxy in front of a peer server that can cut a connection mid-request.
struct Proxy {
    addr: String,
    cut: Arc<Mutex<Cut>>,
    /// Connections the client opened.
    accepted: Arc<AtomicUsize>,
    /// Requests (writes of the client after its first one) passed on to the server.
    passed: Arc<AtomicUsize>,
}

impl Proxy {
    fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = Proxy {
            addr: listener.local_addr().unwrap().to_string(),
            cut: Arc::new(Mutex::new(Cut::Nothing)),
            accepted: Arc::new(AtomicUsize::new(0)),
            passed: Arc::new(AtomicUsize::new(0)),
        };
        let (cut, accepted, passed) = (
            Arc::clone(&proxy.cut),
            Arc::clone(&proxy.accepted),
            Arc::clone(&proxy.passed),
        );
        thread::spawn("proxy", move || {
            for client in listener.incoming().flatten() {
                accepted.fetch_add(1, Ordering::SeqCst);
                let server = TcpStream::connect(&upstream).unwrap();
                let swallow = Arc::new(AtomicBool::new(false));
                let (c, s, sw) = (
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    Arc::clone(&swallow),
                );
                thread::spawn("proxy-down", move || pump_down(s, c, &sw)).unwrap();
                let (cut, passed) = (Arc::clone(&cut), Arc::clone(&passed));
                thread::spawn("proxy-up", move || {
                    pump_up(client, server, &cut, &passed, &swallow)
                })
                .unwrap();
            }
        })
        .unwrap();
        proxy
    }

    fn arm(&self, cut: Cut) {
        *self.cut.lock().unwrap() = cut;
    }
}

/// Server to client, unless told to swallow the answer.
fn pump_down(mut server: TcpStream, mut client: TcpStream, swallow: &AtomicBool) {
    let mut buf = [0u8; 64 * 1024];
    while let Ok(n @ 1..) = server.read(&mut buf) {
        if swallow.load(Ordering::SeqCst) {
            let _ = client.shutdown(Shutdown::Both);
            let _ = server.shutdown(Shutdown::Both);
            return;
        }
        if client.write_all(&buf[..n]).is_err() {
            return;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
}

/// Client to server, cutting as armed.
fn pump_up(
    mut client: TcpStream,
    mut server: TcpStream,
    cut: &Mutex<Cut>,
    passed: &AtomicUsize,
    swallow: &AtomicBool,
) {
    let mut buf = [0u8; 64 * 1024];
    while let Ok(n @ 1..) = client.read(&mut buf) {
        let armed = std::mem::replace(&mut *cut.lock().unwrap(), Cut::Nothing);
        match armed {
            Cut::BeforeRequest => {
                let _ = client.shutdown(Shutdown::Both);
                let _ = server.shutdown(Shutdown::Both);
                return;
            }
            Cut::AfterAnswer => swallow.store(true, Ordering::SeqCst),
            Cut::Nothing => {}
        }
        passed.fetch_add(1, Ordering::SeqCst);
        if server.write_all(&buf[..n]).is_err() {
            return;
        }
    }
    let _ = server.shutdown(Shutdown::Both);
}

fn value(client: &PeerClient, s: &common::Served, row: &str) -> Option<Bytes> {
    let got = client
        .get(&s.peer_table, &Get::new(row.to_string()))
        .unwrap()?;
    got.cells.into_iter().next().map(|c| c.value)
}

/// Writes `row` through `client` and expects the write to fail as possibly applied
/// (`unsent: false`): the connection died with the request sent, so it is not resent.
fn write_fails_as_possibly_applied(client: &PeerClient, s: &common::Served, row: &str) {
    let err = client
        .mutate(&s.peer_table, put(row, "1"), write())
        .unwrap_err();
    assert!(
        matches!(err, ServiceError::PeerUnavailable { unsent: false, .. }),
        "{err:?}"
    );
}

#[test]
fn a_connection_cut_after_a_conditional_write_is_not_resent_and_not_unsent() {
    let s = served(ServeOptions::default());
    let proxy = Proxy::start(s.addr.clone());
    let client = PeerClient::new(&proxy.addr).unwrap();
    assert_eq!(value(&client, &s, "x"), None); // the connection is pooled now
    let passed = proxy.passed.load(Ordering::SeqCst);
    proxy.arm(Cut::AfterAnswer);
    let read = Get::new("x").family("cf");
    let err = client
        .mutate_if(
            &s.peer_table,
            b"x",
            vec![(read, None)],
            put("x", "1"),
            write(),
        )
        .unwrap_err();
    assert!(
        matches!(err, ServiceError::PeerUnavailable { unsent: false, .. }),
        "the server may have applied it: {err:?}"
    );
    // Sent once, on the one connection: not again on a new one.
    assert_eq!(proxy.accepted.load(Ordering::SeqCst), 1);
    assert_eq!(proxy.passed.load(Ordering::SeqCst), passed + 1);
    // The owner applied it, once.
    assert_eq!(local_value(&s.service, "x").unwrap().as_ref(), b"1");
    // Writes are not resent either; the client carries on on a new connection.
    proxy.arm(Cut::AfterAnswer);
    write_fails_as_possibly_applied(&client, &s, "y");
    assert_eq!(proxy.accepted.load(Ordering::SeqCst), 2);
    assert_eq!(value(&client, &s, "y").unwrap().as_ref(), b"1");
}

#[test]
fn a_pooled_connection_that_dies_is_replaced_for_a_read_but_not_for_a_write() {
    let s = served(ServeOptions::default());
    s.service
        .rows()
        .mutate(
            &table(),
            put("r", "v"),
            strata_server::WriteDurability::SyncWal,
        )
        .unwrap();
    let proxy = Proxy::start(s.addr.clone());
    let client = PeerClient::new(&proxy.addr).unwrap();
    assert_eq!(value(&client, &s, "r").unwrap().as_ref(), b"v");
    // The pooled connection dies under a read: it is read again on a new connection.
    proxy.arm(Cut::BeforeRequest);
    assert_eq!(value(&client, &s, "r").unwrap().as_ref(), b"v");
    assert_eq!(proxy.accepted.load(Ordering::SeqCst), 2);
    // Under a write: the client cannot know the server did not get it, so it says so
    // (unsent: false) and does not send it again.
    proxy.arm(Cut::BeforeRequest);
    write_fails_as_possibly_applied(&client, &s, "w");
    assert_eq!(proxy.accepted.load(Ordering::SeqCst), 2);
    assert_eq!(local_value(&s.service, "w"), None);
    client
        .mutate(&s.peer_table, put("w", "1"), write())
        .unwrap();
    assert_eq!(proxy.accepted.load(Ordering::SeqCst), 3);
}

#[test]
fn many_threads_share_one_client() {
    let s = served(ServeOptions::default());
    let client = PeerClient::new(&s.addr).unwrap();
    let (threads, each) = (16, 40);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (client, s) = (&client, &s);
            thread::spawn_scoped(scope, "caller", move || {
                for i in 0..each {
                    let row = format!("t{t}-{i}");
                    let v = format!("{t}/{i}");
                    client
                        .mutate(&s.peer_table, put(&row, &v), write())
                        .unwrap();
                    assert_eq!(value(client, s, &row).unwrap(), Bytes::from(v));
                }
            })
            .unwrap();
        }
    });
    for t in 0..threads {
        for i in 0..each {
            let row = format!("t{t}-{i}");
            assert_eq!(
                local_value(&s.service, &row).unwrap(),
                Bytes::from(format!("{t}/{i}"))
            );
        }
    }
}

#[test]
#[allow(clippy::disallowed_methods)] // measures how promptly a real server stops
fn a_stopped_server_closes_pooled_connections_and_clients_reconnect_after_a_restart() {
    let s = served(ServeOptions::default());
    s.service
        .rows()
        .mutate(
            &table(),
            put("r", "v"),
            strata_server::WriteDurability::SyncWal,
        )
        .unwrap();
    let runtime = common::runtime();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = runtime.spawn(strata_peer::serve(
        Arc::clone(&s.service),
        listener,
        async {
            let _ = stopped.await;
        },
    ));
    let client = PeerClient::with_deadline(&addr, Duration::from_secs(5)).unwrap();
    assert_eq!(value(&client, &s, "r").unwrap().as_ref(), b"v");

    // Stopping ends the server promptly, its idle connection (pooled by the client,
    // its thread blocked reading) included.
    let started = std::time::Instant::now();
    stop.send(()).unwrap();
    runtime.block_on(server).unwrap().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // The client finds its pooled connection closed and cannot connect: nothing sent.
    let err = client.get(&s.peer_table, &Get::new("r")).unwrap_err();
    assert!(
        matches!(err, ServiceError::PeerUnavailable { unsent: true, .. }),
        "{err:?}"
    );

    // A server started again on the same port is used, for writes too.
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(&addr))
        .unwrap();
    runtime.spawn(strata_peer::serve(
        Arc::clone(&s.service),
        listener,
        std::future::pending(),
    ));
    client
        .mutate(&s.peer_table, put("r", "w"), write())
        .unwrap();
    assert_eq!(value(&client, &s, "r").unwrap().as_ref(), b"w");
}

#[test]
fn calls_from_runtime_workers_are_answered_and_counted() {
    let s = served(ServeOptions::default());
    let client = Arc::new(PeerClient::new(&s.addr).unwrap());
    let big = Bytes::from(vec![3u8; 200 * 1024]);
    let (c, pt, big_sent) = (Arc::clone(&client), s.peer_table.clone(), big.clone());
    // On a worker of a multi-threaded runtime (which the servers avoid): small and large
    // requests and answers, each through `block_in_place`, and counted.
    let before = strata_peer::calls_on_async_workers();
    let got = s.runtime.block_on(async move {
        tokio::spawn(async move {
            c.mutate(&pt, put("small", "v"), write()).unwrap();
            let small = c.get(&pt, &Get::new("small")).unwrap().unwrap();
            let cell = strata_engine::Cell::put("big", "cf", "q", 1, big_sent);
            c.mutate(&pt, vec![cell], write()).unwrap();
            let large = c.get(&pt, &Get::new("big")).unwrap().unwrap();
            (small.cells[0].value.clone(), large.cells[0].value.len())
        })
        .await
        .unwrap()
    });
    assert_eq!(got, (Bytes::from("v"), big.len()));
    assert!(strata_peer::calls_on_async_workers() >= before + 4);
    // On a current-thread runtime, where nothing can be handed off.
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let large = current.block_on(async { client.get(&s.peer_table, &Get::new("big")) });
    assert_eq!(large.unwrap().unwrap().cells[0].value, big);
}
