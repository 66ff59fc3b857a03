//! A gRPC server on a free port over a fresh service, for the integration tests.
#![allow(dead_code)]
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use strata_grpc::GrpcLimits;
use strata_server::connections::Api;
use strata_server::{Service, ServiceOptions};
use tokio::time::Instant;

pub struct TestServer {
    pub addr: SocketAddr,
    pub service: Arc<Service>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl TestServer {
    /// Serves with `limits`; `options` adjusts the service first.
    pub async fn start(limits: GrpcLimits, options: impl FnOnce(&mut ServiceOptions)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut service_options = ServiceOptions::new(dir.path());
        options(&mut service_options);
        let service = Service::open(service_options).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = Arc::clone(&service);
        let task = tokio::spawn(async move {
            strata_grpc::serve_listener_with(listener, serving, limits, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        TestServer {
            addr,
            service,
            stop: Some(stop),
            task: Some(task),
            _dir: dir,
        }
    }

    /// A Bigtable Data API client on its own connection.
    pub async fn client(
        &self,
    ) -> googleapis_tonic_google_bigtable_v2::google::bigtable::v2::bigtable_client::BigtableClient<
        tonic::transport::Channel,
    >{
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", self.addr))
            .unwrap()
            .connect()
            .await
            .unwrap();
        googleapis_tonic_google_bigtable_v2::google::bigtable::v2::bigtable_client::BigtableClient::new(channel)
    }

    pub fn open_connections(&self) -> usize {
        self.service.connections().open(Api::Grpc)
    }

    /// Waits up to `within` for the open-connection count to reach `want`.
    pub async fn wait_for_connections(&self, want: usize, within: Duration) {
        let deadline = Instant::now() + within;
        while self.open_connections() != want {
            assert!(
                Instant::now() < deadline,
                "open gRPC connections stayed at {}, expected {want}",
                self.open_connections()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
        }
    }
}

/// A Bigtable client whose connections are TLS to `addr`, trusting only `ca`, offering
/// `h2`, and presenting `identity` (a certificate and key, PEM) when given.
pub async fn tls_client(
    addr: SocketAddr,
    ca: &strata_tls::test_support::TestCa,
    identity: Option<(String, String)>,
) -> googleapis_tonic_google_bigtable_v2::google::bigtable::v2::bigtable_client::BigtableClient<
    tonic::transport::Channel,
> {
    let connector = tokio_rustls::TlsConnector::from(ca.client_config(&[b"h2"], identity));
    let channel = tonic::transport::Endpoint::from_static("http://localhost")
        .connect_with_connector(tower::service_fn(move |_| {
            let connector = connector.clone();
            async move {
                let tcp = tokio::net::TcpStream::connect(addr).await?;
                let name = rustls::pki_types::ServerName::try_from("localhost")
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                let tls = connector.connect(name, tcp).await?;
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(tls))
            }
        }))
        .await
        .expect("a TLS channel");
    googleapis_tonic_google_bigtable_v2::google::bigtable::v2::bigtable_client::BigtableClient::new(
        channel,
    )
}
