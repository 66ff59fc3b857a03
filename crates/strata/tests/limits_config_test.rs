#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The `[limits]` section of `strata server --config` reaches the running servers: a small
//! `max_value_bytes` refuses a bigger put (the error names the key) while smaller ones keep
//! working; short Thrift and gRPC timeouts close a silent connection; a bad `[limits]` key or
//! value stops the server at start with a message naming it.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

mod common;

use common::free_port;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_strata");

struct Server {
    child: Child,
    thrift_port: u16,
    grpc_port: u16,
    _dir: tempfile::TempDir,
}

/// `strata server` with `limits` as the `[limits]` section of its config file.
fn command(dir: &tempfile::TempDir, limits: &str, thrift: u16, grpc: u16) -> Command {
    command_with_config(dir, &format!("[limits]\n{limits}"), thrift, grpc)
}

fn command_with_config(dir: &tempfile::TempDir, text: &str, thrift: u16, grpc: u16) -> Command {
    let config = dir.path().join("strata.toml");
    std::fs::write(&config, text).unwrap();
    let mut c = Command::new(BIN);
    c.args(["server", "--data-dir"])
        .arg(dir.path().join("data"))
        .arg("--config")
        .arg(&config)
        .args(["--thrift-port", &thrift.to_string()])
        .args(["--grpc-port", &grpc.to_string(), "--http-port", "0"]);
    c
}

impl Server {
    fn start(limits: &str) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let (thrift_port, grpc_port) = (free_port(), free_port());
        let child =
            common::spawn_until_listening(&mut command(&dir, limits, thrift_port, grpc_port));
        Server {
            child,
            thrift_port,
            grpc_port,
            _dir: dir,
        }
    }

    fn shell(&self, script: &str) -> Output {
        Command::new(BIN)
            .args(["shell", "--port", &self.thrift_port.to_string()])
            .args(["-e", script])
            .output()
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn max_value_bytes_from_the_config_file_refuses_bigger_puts() {
    let server = Server::start("max_value_bytes = 16\n");
    let created = server.shell("create 't', 'cf'");
    assert!(created.status.success(), "{}", stderr(&created));
    let big = server.shell("put 't', 'r', 'cf:a', '12345678901234567'");
    assert!(!big.status.success());
    assert!(
        stderr(&big).contains("limits.max_value_bytes"),
        "{}",
        stderr(&big)
    );
    let small = server.shell("put 't', 'r', 'cf:a', 'short'; get 't', 'r'");
    let out = String::from_utf8_lossy(&small.stdout);
    assert!(small.status.success(), "{}", stderr(&small));
    assert!(out.contains("value=short"), "{out}");
    assert!(
        !out.contains("1234567"),
        "the refused put wrote nothing: {out}"
    );
}

/// Connects, sends `bytes`, and returns how long the server took to close the connection
/// (panics after 10 s).
fn closed_after(port: u16, bytes: &[u8]) -> Duration {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(bytes).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let clock = strata_runtime::clock::system();
    let start = clock.now();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return clock.elapsed(start),
            Ok(_) => {} // the gRPC server's SETTINGS frame
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return clock.elapsed(start)
            }
            Err(e) => panic!("the connection stayed open: {e}"),
        }
    }
}

#[test]
fn connection_timeouts_from_the_config_file_close_silent_clients() {
    let server = Server::start("thrift_read_timeout_ms = 300\ngrpc_handshake_timeout_ms = 300\n");
    // Half a Thrift frame header, then silence.
    let thrift = closed_after(server.thrift_port, &[0, 0]);
    assert!(thrift < Duration::from_secs(5), "{thrift:?}");
    // Half the HTTP/2 preface, then silence.
    let grpc = closed_after(server.grpc_port, b"PRI * HTTP");
    assert!(grpc < Duration::from_secs(5), "{grpc:?}");
    // Both servers still serve.
    let ok = server.shell("create 't', 'cf'; list");
    assert!(ok.status.success(), "{}", stderr(&ok));
}

/// Runs the server with `limits` and expects it to exit at start with `message` on stderr.
fn refused_at_start(limits: &str, message: &str) {
    refused_with_config(&format!("[limits]\n{limits}"), message);
}

fn refused_with_config(config: &str, message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let o = command_with_config(&dir, config, free_port(), free_port())
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(!o.status.success(), "the server started with {config:?}");
    assert!(stderr(&o).contains(message), "{}", stderr(&o));
}

#[test]
fn bad_limits_settings_stop_the_server_at_start() {
    refused_at_start("max_value_byte = 1\n", "max_value_byte");
    refused_at_start("filter_max_depth = 100000\n", "limits.filter_max_depth");
}

#[test]
fn a_memory_limit_smaller_than_its_parts_stops_the_server_at_start() {
    refused_with_config("memory_limit_mb = 16\n", "below the minimum of 64");
    refused_with_config(
        "memory_limit_mb = 100\n[limits]\nmax_write_bytes_in_flight = 104857600\n",
        "limits.max_write_bytes_in_flight 100 MiB",
    );
}
