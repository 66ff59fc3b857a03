#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The gRPC server counts its open connections for `/metrics`, and forgets a connection once
//! the client goes away.

use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_server::connections::Api;
use strata_server::{Service, ServiceOptions};

async fn wait_for(service: &Service, want: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while service.connections().open(Api::Grpc) != want {
        assert!(
            Instant::now() < deadline,
            "open gRPC connections stayed at {}, expected {want}",
            service.connections().open(Api::Grpc)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_counted_while_open() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(strata_grpc::serve_listener(
        listener,
        Arc::clone(&service),
        async {
            let _ = stopped.await;
        },
    ));
    let first = tokio::net::TcpStream::connect(addr).await.unwrap();
    let second = tokio::net::TcpStream::connect(addr).await.unwrap();
    wait_for(&service, 2).await;
    drop(first);
    wait_for(&service, 1).await;
    drop(second);
    wait_for(&service, 0).await;
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    assert_eq!(service.connections().open(Api::Thrift), 0);
}
