//! TLS listeners end to end: a rustls client against [`TlsListener`], certificates made
//! on the spot (`strata_tls::test_support`) in a temporary directory.
#![allow(clippy::disallowed_methods)] // real time, threads and files in these tests
#![allow(clippy::unwrap_used)] // helpers of tests

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::ServerName;
use strata_tls::test_support::TestCa as Authority;
use strata_tls::{server_config, TlsError, TlsFiles, TlsListener};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn client(trusted: &Authority, identity: Option<(String, String)>) -> tokio_rustls::TlsConnector {
    tokio_rustls::TlsConnector::from(trusted.client_config(&[], identity))
}

/// Serves `files` on a fresh port: each connection gets "hello" and is closed.
async fn serve(files: &TlsFiles, timeout: Duration) -> SocketAddr {
    let config = server_config(files, &[b"http/1.1"], strata_runtime::clock::system()).unwrap();
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut listener = TlsListener::new(tcp, config).with_handshake_timeout(timeout);
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await;
            tokio::spawn(async move {
                let _ = stream.write_all(b"hello").await;
                let _ = stream.shutdown().await;
            });
        }
    });
    addr
}

async fn greeting(
    addr: SocketAddr,
    connector: &tokio_rustls::TlsConnector,
) -> std::io::Result<String> {
    let tcp = tokio::net::TcpStream::connect(addr).await?;
    let name = ServerName::try_from("localhost").unwrap();
    let mut tls = connector.connect(name, tcp).await?;
    let mut text = String::new();
    tls.read_to_string(&mut text).await?;
    Ok(text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_trusts_the_ca_is_answered_and_one_that_does_not_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, stranger) = (Authority::new("test CA"), Authority::new("other CA"));
    let addr = serve(&ca.write_server_files(dir.path()), Duration::from_secs(5)).await;
    assert_eq!(greeting(addr, &client(&ca, None)).await.unwrap(), "hello");
    let refused = greeting(addr, &client(&stranger, None)).await;
    assert!(
        refused.is_err(),
        "an unknown issuer is not trusted: {refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_handshake_holds_up_no_other_client_and_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Authority::new("test CA");
    let addr = serve(
        &ca.write_server_files(dir.path()),
        Duration::from_millis(300),
    )
    .await;
    // Connected, and silent: its handshake never starts.
    let mut stalled = tokio::net::TcpStream::connect(addr).await.unwrap();
    assert_eq!(greeting(addr, &client(&ca, None)).await.unwrap(), "hello");
    let mut byte = [0u8; 1];
    let read = tokio::time::timeout(Duration::from_secs(5), stalled.read(&mut byte)).await;
    assert!(
        matches!(read, Ok(Ok(0)) | Ok(Err(_))),
        "the server closed the stalled connection after its handshake timeout: {read:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renewed_certificate_is_served_without_a_restart_and_a_broken_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (Authority::new("first CA"), Authority::new("second CA"));
    let files = first.write_server_files(dir.path());
    let addr = serve(&files, Duration::from_secs(5)).await;
    assert_eq!(
        greeting(addr, &client(&first, None)).await.unwrap(),
        "hello"
    );

    // A half-written renewal: the certificate alone, its old key left. Not served.
    let (cert, key) = second.leaf("localhost");
    std::fs::write(&files.cert, &cert).unwrap();
    tokio::time::sleep(strata_tls::reload::CHECK_EVERY + Duration::from_millis(200)).await;
    assert_eq!(
        greeting(addr, &client(&first, None)).await.unwrap(),
        "hello",
        "a key that does not go with the new certificate keeps the old pair"
    );
    // The key follows: the new pair is served from the next check on.
    std::fs::write(&files.key, &key).unwrap();
    tokio::time::sleep(strata_tls::reload::CHECK_EVERY + Duration::from_millis(200)).await;
    let _first_handshake_checks = greeting(addr, &client(&second, None)).await;
    assert_eq!(
        greeting(addr, &client(&second, None)).await.unwrap(),
        "hello"
    );
    assert!(greeting(addr, &client(&first, None)).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_tls_answers_only_clients_with_a_certificate_its_ca_signed() {
    let dir = tempfile::tempdir().unwrap();
    let (server_ca, client_ca, stranger) = (
        Authority::new("server CA"),
        Authority::new("client CA"),
        Authority::new("other CA"),
    );
    let mut files = server_ca.write_server_files(dir.path());
    std::fs::write(dir.path().join("clients.pem"), client_ca.pem()).unwrap();
    files.client_ca = Some(dir.path().join("clients.pem"));
    let addr = serve(&files, Duration::from_secs(5)).await;
    let signed = client(&server_ca, Some(client_ca.leaf("alice")));
    assert_eq!(greeting(addr, &signed).await.unwrap(), "hello");
    let anonymous = greeting(addr, &client(&server_ca, None)).await;
    assert!(anonymous.is_err(), "no client certificate: {anonymous:?}");
    let forged = greeting(addr, &client(&server_ca, Some(stranger.leaf("mallory")))).await;
    assert!(forged.is_err(), "a certificate of another CA: {forged:?}");
}

#[test]
fn bad_files_are_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Authority::new("test CA");
    let clock = strata_runtime::clock::system();
    let files = ca.write_server_files(dir.path());

    let missing = TlsFiles {
        key: dir.path().join("absent.key"),
        ..files.clone()
    };
    let error = server_config(&missing, &[], Arc::clone(&clock)).unwrap_err();
    assert!(matches!(&error, TlsError::Read { path, .. } if path.ends_with("absent.key")));

    std::fs::write(dir.path().join("empty.pem"), "not a certificate\n").unwrap();
    let no_cert = TlsFiles {
        cert: dir.path().join("empty.pem"),
        ..files.clone()
    };
    let error = server_config(&no_cert, &[], Arc::clone(&clock)).unwrap_err();
    assert!(
        error.to_string().contains("no PEM CERTIFICATE block"),
        "{error}"
    );

    let (_, other_key) = ca.leaf("localhost");
    std::fs::write(dir.path().join("other.key"), other_key).unwrap();
    let mismatched = TlsFiles {
        key: dir.path().join("other.key"),
        ..files
    };
    let error = server_config(&mismatched, &[], clock).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("other.key") && text.contains("does not go with"),
        "{text}"
    );
}
