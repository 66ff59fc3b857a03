#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `[tls]` in `strata server --config`: the HTTP port answers over TLS with the configured
//! certificate and not in clear text, the status API says so, and a listener that cannot
//! serve TLS yet stops the server at start with the reason.
#![allow(clippy::disallowed_methods)] // real files and sockets in these tests

mod common;

use common::free_port;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};

use strata_tls::test_support::TestCa;

const BIN: &str = env!("CARGO_BIN_EXE_strata");

/// A CA, and a certificate it signed for `localhost` written to `dir` (server.pem,
/// server.key); answers the CA's certificate.
fn certificates(dir: &std::path::Path) -> TestCa {
    let ca = TestCa::new("test CA");
    ca.write_server_files(dir);
    ca
}

fn server_command(dir: &std::path::Path, config: &str, http: u16) -> Command {
    ports_command(dir, config, free_port(), http, 0)
}

fn server_command_with_grpc(dir: &std::path::Path, config: &str, http: u16, grpc: u16) -> Command {
    ports_command(dir, config, free_port(), http, grpc)
}

/// `strata server` with `config` and these ports (0 = off, but Thrift's is always on).
fn ports_command(
    dir: &std::path::Path,
    config: &str,
    thrift: u16,
    http: u16,
    grpc: u16,
) -> Command {
    std::fs::write(dir.join("strata.toml"), config).unwrap();
    let mut c = Command::new(BIN);
    c.args(["server", "--data-dir"])
        .arg(dir.join("data"))
        .arg("--config")
        .arg(dir.join("strata.toml"))
        .args(["--thrift-port", &thrift.to_string()])
        .args(["--grpc-port", &grpc.to_string()])
        .args(["--hbase-port", "0", "--zookeeper-port", "0"])
        .args(["--http-port", &http.to_string()]);
    c
}

/// A `[tls]` section with the files `certificates` wrote (and `key` as the key file).
fn tls_section(dir: &std::path::Path, key: &str, listeners: &[&str]) -> String {
    let listeners: Vec<String> = listeners.iter().map(|l| format!("{l:?}")).collect();
    format!(
        "[tls]\ncert = {:?}\nkey = {:?}\nlisteners = [{}]\n",
        dir.join("server.pem"),
        dir.join(key),
        listeners.join(", ")
    )
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A TLS connection to `port` that trusts only `ca` and offers `alpn`.
fn tls_connect(
    port: u16,
    ca: &TestCa,
    alpn: &[u8],
) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let conn = rustls::ClientConnection::new(ca.client_config(&[alpn], None), name).unwrap();
    let tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
    rustls::StreamOwned::new(conn, tcp)
}

/// GET `path` over TLS, trusting only `ca`; the whole response.
fn https_get(port: u16, path: &str, ca: &TestCa) -> String {
    let mut tls = tls_connect(port, ca, b"http/1.1");
    write!(
        tls,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::new();
    // The server may close without TLS's close_notify once the body is sent.
    let _ = tls.read_to_end(&mut response);
    String::from_utf8_lossy(&response).into_owned()
}

#[test]
fn the_http_port_serves_tls_with_the_configured_certificate_and_no_clear_text() {
    let dir = tempfile::tempdir().unwrap();
    let ca = certificates(dir.path());
    let http = free_port();
    let config = tls_section(dir.path(), "server.key", &["http"]);
    let _server = Server(common::spawn_until_listening(&mut server_command(
        dir.path(),
        &config,
        http,
    )));

    let health = https_get(http, "/healthz", &ca);
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let status = https_get(http, "/api/v1/server", &ca);
    assert!(
        status.contains("TLS on http"),
        "the status API names it: {status}"
    );

    let mut plain = TcpStream::connect(("127.0.0.1", http)).unwrap();
    plain
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    plain
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let mut answer = Vec::new();
    let _ = plain.read_to_end(&mut answer);
    assert!(
        !String::from_utf8_lossy(&answer).contains("HTTP/1.1 200"),
        "no clear-text answer"
    );
}

#[test]
fn the_grpc_port_serves_tls_with_alpn_h2() {
    let dir = tempfile::tempdir().unwrap();
    let ca = certificates(dir.path());
    let grpc = free_port();
    let config = tls_section(dir.path(), "server.key", &["grpc"]);
    let _server = Server(common::spawn_until_listening(
        &mut server_command_with_grpc(dir.path(), &config, 0, grpc),
    ));
    let mut tls = tls_connect(grpc, &ca, b"h2");
    // HTTP/2's preface, then the server's SETTINGS frame comes back inside TLS.
    tls.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .unwrap();
    let mut header = [0u8; 9];
    tls.read_exact(&mut header).unwrap();
    assert_eq!(tls.conn.alpn_protocol(), Some(&b"h2"[..]));
    assert_eq!(header[3], 0x04, "a SETTINGS frame: {header:?}");
}

#[test]
fn the_thrift_port_serves_tls() {
    let dir = tempfile::tempdir().unwrap();
    let ca = certificates(dir.path());
    let thrift = free_port();
    let config = tls_section(dir.path(), "server.key", &["thrift"]);
    let mut command = ports_command(dir.path(), &config, thrift, 0, 0);
    let _server = Server(common::spawn_until_listening(&mut command));
    let mut tls = tls_connect(thrift, &ca, b"unused");
    // getTableNames() in the strict binary protocol, buffered, sequence id 7.
    let mut call = vec![0x80, 0x01, 0x00, 0x01];
    call.extend_from_slice(&13u32.to_be_bytes());
    call.extend_from_slice(b"getTableNames");
    call.extend_from_slice(&7u32.to_be_bytes());
    call.push(0x00);
    tls.write_all(&call).unwrap();
    let mut reply = [0u8; 4];
    tls.read_exact(&mut reply).unwrap();
    assert_eq!(reply, [0x80, 0x01, 0x00, 0x02], "a Thrift REPLY");
}

#[test]
fn a_listener_that_cannot_serve_tls_yet_stops_the_server_at_start() {
    let dir = tempfile::tempdir().unwrap();
    certificates(dir.path());
    let config = tls_section(dir.path(), "server.key", &["http", "hbase"]);
    let out = server_command(dir.path(), &config, free_port())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hbase cannot serve TLS yet"), "{stderr}");
}

#[test]
fn a_key_that_does_not_match_stops_the_server_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    certificates(dir.path());
    let (_, other_key) = TestCa::new("other CA").leaf("localhost");
    std::fs::write(dir.path().join("other.key"), other_key).unwrap();
    let config = tls_section(dir.path(), "other.key", &["http"]);
    let out = server_command(dir.path(), &config, free_port())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("other.key") && stderr.contains("does not go with"),
        "{stderr}"
    );
}
