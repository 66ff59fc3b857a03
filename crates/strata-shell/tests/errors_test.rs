#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Mistakes and failures: usage help, server errors, unknown commands, stopping at the first
//! error, and servers without Strata's extensions (HBase), which are also checked to receive
//! plain buffered (unframed) binary protocol.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

use strata_runtime::thread::spawn;

use common::*;

#[test]
fn bad_arguments_print_the_commands_help() {
    let server = TestServer::start();
    let mut sh = server.session();
    let o = sh.run("get 't'");
    assert!(!o.ok);
    assert!(
        o.err
            .starts_with("ERROR: wrong number of arguments (given 1, expected 2+)"),
        "{}",
        o.err
    );
    assert!(
        o.err.contains("strata> get 't1', 'r1'"),
        "help text follows: {}",
        o.err
    );
    let o = sh.run("scan 't', {LIMT => 1}");
    assert!(o.err.contains("unknown option LIMT for scan"), "{}", o.err);
    let o = sh.run("put 't', 'r', 'family-only', 'v'");
    assert!(o.err.contains("family:qualifier"), "{}", o.err);
}

#[test]
fn server_errors_point_to_help_and_stop_the_script() {
    let server = TestServer::start();
    let mut sh = server.session();
    let o = sh.run("create 'a', 'f'; scan 'missing'; create 'b', 'f'");
    assert!(!o.ok);
    assert!(o.out.contains("Created table a"));
    assert!(
        !o.out.contains("Created table b"),
        "the script stops at the error"
    );
    assert!(
        !o.out.contains("COLUMN+CELL"),
        "no header for a failed scan: {}",
        o.out
    );
    assert!(
        o.err.contains("ERROR: table missing does not exist"),
        "{}",
        o.err
    );
    assert!(o.err.contains("For usage try 'help \"scan\"'"), "{}", o.err);
    let o = sh.run(r#"scan 'a', {FILTER => "NoSuchFilter()"}"#);
    assert!(!o.ok && o.err.starts_with("ERROR: "), "{o:?}");
}

#[test]
fn unknown_commands_and_syntax_errors() {
    let server = TestServer::start();
    let mut sh = server.session();
    let o = sh.run("frobnicate 't'");
    assert!(!o.ok);
    assert_eq!(
        o.err.lines().next().unwrap(),
        "ERROR: Unknown command 'frobnicate'. Try 'help'."
    );
    // A syntax error anywhere stops the script before anything runs.
    let o = sh.run("create 'x', 'f'\nput 'x', 'r' 'f:q'");
    assert!(!o.ok);
    assert!(o.err.contains("line 2, column 14"), "{}", o.err);
    assert!(!o.out.contains("Created"), "{}", o.out);
}

/// A stand-in for a Thrift server without Strata's extensions: it answers every call with
/// TApplicationException UNKNOWN_METHOD (as HBase does for the strata* methods) and reports
/// the first bytes of each request.
fn unknown_method_server() -> (u16, mpsc::Receiver<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    spawn("fake-thrift-accept", move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let tx = tx.clone();
            spawn("fake-thrift-conn", move || loop {
                let mut buf = vec![0u8; 4096];
                let n = match stream.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                buf.truncate(n);
                let _ = tx.send(buf.clone());
                // Strict binary: version word, name, sequence id.
                let name_len = u32::from_be_bytes(buf[4..8].try_into().unwrap()) as usize;
                let name = &buf[8..8 + name_len];
                let seq = &buf[8 + name_len..12 + name_len];
                let mut reply = vec![0x80, 0x01, 0x00, 0x03];
                reply.extend_from_slice(&(name_len as u32).to_be_bytes());
                reply.extend_from_slice(name);
                reply.extend_from_slice(seq);
                let message = b"Invalid method name";
                reply.extend_from_slice(&[11, 0, 1]);
                reply.extend_from_slice(&(message.len() as u32).to_be_bytes());
                reply.extend_from_slice(message);
                reply.extend_from_slice(&[8, 0, 2, 0, 0, 0, 1, 0]);
                if stream.write_all(&reply).is_err() {
                    return;
                }
            })
            .unwrap();
        }
    })
    .unwrap();
    (port, rx)
}

#[test]
fn extensions_on_a_plain_thrift1_server_are_reported_as_unsupported() {
    let (port, requests) = unknown_method_server();
    let mut sh = Shell::connect(port);
    let o = sh.run("flush 't'");
    assert!(!o.ok);
    assert!(
        o.err
            .contains("ERROR: flush is not supported by this server"),
        "{}",
        o.err
    );
    // Buffered binary: the request starts with the binary version word, not a frame length.
    let first = requests.recv().unwrap();
    assert_eq!(first[..4], [0x80, 0x01, 0x00, 0x01], "{first:?}");
    let name_len = u32::from_be_bytes(first[4..8].try_into().unwrap()) as usize;
    assert_eq!(&first[8..8 + name_len], b"strataFlush");
    for script in [
        "create_namespace 'n'",
        "truncate 't'",
        "merge_region 'a', 'b'",
        "split 't'",
        // Thrift1's createTable cannot carry a durability, so there is no fallback.
        "create 't', 'f', DURABILITY => 'ASYNC_WAL'",
        "alter 't', DURABILITY => 'ASYNC_WAL'",
    ] {
        let o = sh.run(script);
        assert!(
            o.err.contains("is not supported by this server"),
            "{script}: {}",
            o.err
        );
    }
}

#[test]
fn an_unreachable_server_is_a_connection_error() {
    // Bind and drop a listener to find a port nobody listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut sh = Shell::connect(port);
    let o = sh.run("list");
    assert!(!o.ok);
    assert!(
        o.err
            .contains(&format!("cannot talk to the server at 127.0.0.1:{port}")),
        "{}",
        o.err
    );
}
