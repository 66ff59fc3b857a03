//! Serves the REST gateway alone over a data directory, for trying it out and for the
//! comparison with HBase's REST server (tests/rest/compare.py):
//! `cargo run -p strata-rest --example serve -- --data-dir /tmp/d --port 8081`.

use std::net::SocketAddr;

use clap::Parser;
use strata_rest::{router_with, RestOptions};
use strata_server::{Service, ServiceOptions};

#[derive(Parser)]
struct Args {
    /// Where the data lives.
    #[arg(long)]
    data_dir: std::path::PathBuf,
    /// Loopback port to listen on (0: any free port).
    #[arg(long, default_value_t = 8081)]
    port: u16,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args = Args::parse();
    let service = Service::open(ServiceOptions::new(&args.data_dir))?;
    let listener =
        tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], args.port))).await?;
    let address = listener.local_addr()?;
    let options = RestOptions {
        location: address.to_string(),
        ..RestOptions::default()
    };
    println!("strata-rest listening on http://{address}");
    axum::serve(listener, router_with(service.clone(), options))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    service.close()?;
    Ok(())
}
