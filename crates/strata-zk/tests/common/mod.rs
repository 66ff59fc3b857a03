//! A facade on 127.0.0.1:0 for the tests, and a raw client that speaks frames.
#![allow(dead_code, clippy::disallowed_methods)] // tests drive real sockets and real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strata_runtime::clock::{self, Clock};
use strata_zk::jute::{JuteReader, JuteWriter};
use strata_zk::records::{ConnectRequest, ConnectResponse, ReplyHeader, RequestHeader};
use strata_zk::{ComputedTree, ZkConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub const MASTER: &[u8] = b"\xff\x00\x00\x00\x14master:16000|PBUF-bytes";
pub const CLUSTER_ID: &[u8] = b"5b1c6b5e-strata-cluster";

/// A running facade; dropping it stops the server.
pub struct TestServer {
    pub addr: SocketAddr,
    /// Whether `/hbase/master` exists (a computed node).
    pub master_up: Arc<AtomicBool>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

pub fn hbase_tree(master_up: Arc<AtomicBool>) -> ComputedTree {
    ComputedTree::new()
        .fixed("/hbase/hbaseid", CLUSTER_ID)
        .unwrap()
        .computed("/hbase/master", move || {
            master_up
                .load(Ordering::SeqCst)
                .then(|| Bytes::from_static(MASTER))
        })
        .unwrap()
        .fixed("/hbase/meta-region-server", &b"meta"[..])
        .unwrap()
}

/// A config whose session timeouts are short enough to test in real time.
pub fn quick_config() -> ZkConfig {
    ZkConfig {
        min_session_timeout: Duration::from_millis(300),
        max_session_timeout: Duration::from_millis(2000),
        handshake_timeout: Duration::from_secs(2),
        ..ZkConfig::default()
    }
}

pub async fn start(config: ZkConfig) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let master_up = Arc::new(AtomicBool::new(true));
    let tree = Arc::new(hbase_tree(Arc::clone(&master_up)));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let clock: Arc<dyn Clock> = clock::system();
    tokio::spawn(strata_zk::serve_listener(
        listener,
        tree,
        config,
        clock,
        async {
            let _ = stopped.await;
        },
    ));
    TestServer {
        addr,
        master_up,
        _stop: stop,
    }
}

pub fn connect_request(
    timeout_ms: i32,
    session_id: i64,
    passwd: &[u8],
    read_only: Option<bool>,
) -> Bytes {
    let mut w = JuteWriter::new();
    ConnectRequest {
        protocol_version: 0,
        last_zxid_seen: 0,
        timeout_ms,
        session_id,
        passwd: Bytes::copy_from_slice(passwd),
        read_only,
    }
    .encode(&mut w);
    w.into_frame()
}

pub fn request(xid: i32, op: i32, body: impl FnOnce(&mut JuteWriter)) -> Bytes {
    let mut w = JuteWriter::new();
    RequestHeader { xid, op }.encode(&mut w);
    body(&mut w);
    w.into_frame()
}

/// A client that sends and reads frames by hand.
pub struct RawClient {
    pub stream: TcpStream,
}

impl RawClient {
    pub async fn open(addr: SocketAddr) -> RawClient {
        RawClient {
            stream: TcpStream::connect(addr).await.unwrap(),
        }
    }

    /// Opens a connection and a new session; returns the response too.
    pub async fn session(addr: SocketAddr, timeout_ms: i32) -> (RawClient, ConnectResponse) {
        let mut client = RawClient::open(addr).await;
        client
            .send(&connect_request(timeout_ms, 0, &[0; 16], Some(false)))
            .await;
        let response = ConnectResponse::decode(&client.frame().await.unwrap()).unwrap();
        (client, response)
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// The next frame's body, or `None` if the server closed the connection.
    pub async fn frame(&mut self) -> Option<Vec<u8>> {
        let mut prefix = [0u8; 4];
        self.stream.read_exact(&mut prefix).await.ok()?;
        let mut body = vec![0u8; u32::from_be_bytes(prefix) as usize];
        self.stream.read_exact(&mut body).await.ok()?;
        Some(body)
    }

    /// The next reply's header and body.
    pub async fn reply(&mut self) -> (ReplyHeader, Vec<u8>) {
        let frame = self
            .frame()
            .await
            .expect("a reply, not a closed connection");
        let header = ReplyHeader::decode(&mut JuteReader::new(&frame)).unwrap();
        (header, frame[16..].to_vec())
    }

    /// True if the server closes the connection within `limit` without sending anything.
    pub async fn closed_within(&mut self, limit: Duration) -> bool {
        let mut byte = [0u8; 1];
        matches!(
            tokio::time::timeout(limit, self.stream.read(&mut byte)).await,
            Ok(Ok(0)) | Ok(Err(_))
        )
    }
}
