#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The Thrift and gRPC servers count their open connections in the service (for
//! `/metrics`), and forget a connection once the client goes away.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use strata_server::connections::Api;
use strata_server::{Service, ServiceOptions};
use tokio::time::Instant;

async fn wait_for(service: &Service, api: Api, want: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while service.connections().open(api) != want {
        assert!(
            Instant::now() < deadline,
            "open {} connections stayed at {}, expected {want}",
            api.label(),
            service.connections().open(api)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Serves `api` with `serve` on a free port, opens two raw connections and closes them,
/// checking the count of `api` (and that the other API's stays at zero).
async fn counts_connections<F, E>(
    api: Api,
    serve: fn(tokio::net::TcpListener, Arc<Service>, ShutdownSignal) -> F,
) where
    F: Future<Output = Result<(), E>> + Send + 'static,
    E: std::fmt::Debug + Send + 'static,
{
    let dir = tempfile::tempdir().unwrap();
    let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(
        listener,
        Arc::clone(&service),
        ShutdownSignal(stopped),
    ));
    let first = tokio::net::TcpStream::connect(addr).await.unwrap();
    let second = tokio::net::TcpStream::connect(addr).await.unwrap();
    wait_for(&service, api, 2).await;
    drop(first);
    wait_for(&service, api, 1).await;
    drop(second);
    wait_for(&service, api, 0).await;
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    let other = Api::ALL.into_iter().find(|a| *a != api).unwrap();
    assert_eq!(service.connections().open(other), 0);
}

/// Completes when the test asks the server to stop.
struct ShutdownSignal(tokio::sync::oneshot::Receiver<()>);

impl ShutdownSignal {
    async fn wait(self) {
        let _ = self.0.await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_connections_are_counted_while_open() {
    counts_connections(Api::Grpc, |listener, service, stop| {
        strata_grpc::serve_listener(listener, service, stop.wait())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thrift_connections_are_counted_while_open() {
    counts_connections(Api::Thrift, |listener, service, stop| {
        strata_thrift::serve_listener(listener, service, stop.wait())
    })
    .await;
}
