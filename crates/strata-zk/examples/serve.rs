//! Serves a fixed HBase-like tree on an address, for trying the facade with real clients
//! (ZooKeeper's Java client, zkCli.sh, go-zookeeper):
//! `cargo run -p strata-zk --example serve -- 127.0.0.1:2181`. Stops on Ctrl-C.

use std::net::SocketAddr;
use std::sync::Arc;

use strata_zk::{ComputedTree, ZkConfig};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber_init();
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:2181".into())
        .parse()?;
    let tree = ComputedTree::new()
        .fixed("/hbase/hbaseid", &b"example-cluster-id"[..])?
        .fixed("/hbase/master", &b"\xff\x00\x00\x00\x07examplePBUF"[..])?
        .fixed(
            "/hbase/meta-region-server",
            &b"\xff\x00\x00\x00\x07examplePBUF"[..],
        )?;
    // This example is its own composition root: it picks the system clock.
    #[allow(clippy::disallowed_methods)]
    let clock = strata_runtime::clock::system();
    println!("serving on {addr}");
    strata_zk::serve(addr, Arc::new(tree), ZkConfig::default(), clock, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}

/// Logs to stderr at the level `RUST_LOG` names (info by default).
fn tracing_subscriber_init() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
