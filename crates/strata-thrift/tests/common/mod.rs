//! Test harness: a Strata service on a temp dir, the Thrift server on an ephemeral port, and
//! volo's generated client in each transport/protocol combination.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests
#![allow(dead_code, clippy::unwrap_used)] // test harness: a failed setup should panic

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use strata_server::{Service, ServiceOptions};
use strata_thrift::codec::MakeCompatCodec;
use strata_thrift::gen::volo_gen::hbase::{HbaseClient, HbaseClientBuilder, Text};
use tokio::sync::oneshot;
use volo_thrift::codec::default::{framed::MakeFramedCodec, DefaultMakeCodec};
use volo_thrift::Protocol;

pub struct TestServer {
    pub addr: SocketAddr,
    pub service: Arc<Service>,
    stop: Option<oneshot::Sender<()>>,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}).await
    }

    /// [`TestServer::start`] with the service options adjusted by `options`.
    pub async fn start_with(options: impl FnOnce(&mut ServiceOptions)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let mut service_options = ServiceOptions::new(dir.path());
        options(&mut service_options);
        let service = Service::open(service_options).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let svc = Arc::clone(&service);
        tokio::spawn(async move {
            strata_thrift::serve_listener(listener, svc, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        TestServer {
            addr,
            service,
            stop: Some(stop),
            _dir: dir,
        }
    }

    /// buffered or framed transport, binary or compact protocol.
    pub fn client(&self, framed: bool, compact: bool) -> HbaseClient {
        let protocol = if compact {
            Protocol::ApacheCompact
        } else {
            Protocol::Binary
        };
        // The client needs the compact workaround too: pilota's compact decoder would misread
        // replies the same way it misreads requests.
        let thrift = MakeCompatCodec::new(protocol);
        let builder = HbaseClientBuilder::new("hbase").address(self.addr);
        if framed {
            builder
                .make_codec(DefaultMakeCodec::new(MakeFramedCodec::new(thrift)))
                .build()
        } else {
            builder.make_codec(DefaultMakeCodec::new(thrift)).build()
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

pub fn t(s: &str) -> Option<Text> {
    Some(Text(Bytes::copy_from_slice(s.as_bytes())))
}

pub fn text(s: &str) -> Text {
    Text(Bytes::copy_from_slice(s.as_bytes()))
}

pub fn s(t: &Text) -> String {
    String::from_utf8_lossy(&t.0).into_owned()
}

/// For the arguments HBase types as `Bytes` rather than `Text`.
pub fn by(s: &str) -> Option<strata_thrift::gen::volo_gen::hbase::Bytes> {
    Some(strata_thrift::gen::volo_gen::hbase::Bytes(
        Bytes::copy_from_slice(s.as_bytes()),
    ))
}
