//! `strata server`: the standalone server. It needs no configuration and no other service:
//! data goes in `./strata-data`, it listens on 127.0.0.1 only, and it prints one line once
//! it is ready. SIGINT and SIGTERM flush everything and exit cleanly.

mod cluster;
mod config;
mod hbase_cluster;
mod hbase_rpc;
mod http;
mod injected_latency;
mod l2_cache;
mod limits;
mod member;
mod memory;
mod security;
mod shutdown_signal;
mod storage_defs;
mod tls;
mod volumes;
mod wal_groups;

pub(crate) use shutdown_signal::ShutdownSignal;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use strata_server::Service;

use config::{FileConfig, ServerConfig};

/// Flags of `strata server` (they override the configuration file).
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// Data directory [default: ./strata-data]
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1]
    #[arg(long)]
    listen: Option<std::net::IpAddr>,
    /// Port of the HBase Thrift1 API [default: 9090, HBase's own]
    #[arg(long)]
    thrift_port: Option<u16>,
    /// Port of the HTTP API (status UI, metrics, REST) [default: 8080; 0 = off]
    #[arg(long)]
    http_port: Option<u16>,
    /// Port of the gRPC API (Cloud Bigtable v2) [default: 50051; 0 = off]
    #[arg(long)]
    grpc_port: Option<u16>,
    /// Port of HBase's native RPC, for Java clients (`hbase-client`) [default: 16020; 0 = off]
    #[arg(long)]
    hbase_port: Option<u16>,
    /// Port of the read-only ZooKeeper endpoint HBase clients find the server through
    /// (`hbase.zookeeper.quorum`) [default: 2181; 0 = off]
    #[arg(long)]
    zookeeper_port: Option<u16>,
    /// TOML configuration file (see README.md, "Configuration")
    #[arg(long)]
    config: Option<PathBuf>,
    /// Cluster mode: the cluster's name (with --etcd and --store; see docs/cluster.md)
    #[arg(long)]
    cluster: Option<String>,
    /// Cluster mode: etcd endpoints, comma-separated (http://HOST:PORT[,...])
    #[arg(long)]
    etcd: Option<String>,
    /// Cluster mode: object store URL (s3://BUCKET/PREFIX, with the AWS_* variables,
    /// file:///DIR, or hdfs://HOST:PORT/DIR in a build with the `hdfs` feature)
    #[arg(long)]
    store: Option<String>,
    /// Cluster mode, benchmarks only: milliseconds added to every object-store call, a
    /// simulated distant store [default: 0]
    #[arg(long)]
    store_latency_ms: Option<u64>,
    /// Cluster mode: the host other servers and forwarded clients reach this one at
    /// [default: the listen address]
    #[arg(long)]
    advertise: Option<String>,
    /// Cluster mode: port of the internal RPC other servers forward requests to
    /// [default: 16040]
    #[arg(long)]
    peer_port: Option<u16>,
}

/// The log filter the server starts with: the config file's `log_level`, else `info`
/// (`STRATA_LOG` overrides both; see main.rs).
pub fn log_level(args: &ServerArgs) -> String {
    effective_config(args)
        .map(|c| c.log_level)
        .unwrap_or_else(|_| "info".to_string())
}

fn effective_config(args: &ServerArgs) -> Result<ServerConfig, String> {
    let file = match &args.config {
        Some(path) => config::read_file(path)?,
        None => FileConfig::default(),
    };
    let mut config = ServerConfig::from_file(file)?;
    config
        .service
        .limits
        .validate()
        .map_err(|e| format!("invalid [limits] setting: {e}"))?;
    if let Some(dir) = &args.data_dir {
        config.set_data_dir(dir.clone());
    }
    if let Some(listen) = args.listen {
        config.listen = listen;
    }
    if let Some(port) = args.thrift_port {
        config.thrift_port = port;
    }
    if let Some(port) = args.http_port {
        config.http_port = port;
    }
    if let Some(port) = args.grpc_port {
        config.grpc_port = port;
    }
    if let Some(port) = args.hbase_port {
        config.hbase_port = config::DefaultedPort::set(port);
    }
    if let Some(port) = args.zookeeper_port {
        config.zookeeper_port = config::DefaultedPort::set(port);
    }
    let flags = [
        (&args.cluster, &mut config.cluster.name),
        (&args.etcd, &mut config.cluster.etcd),
        (&args.store, &mut config.cluster.store),
        (&args.advertise, &mut config.cluster.advertise),
    ];
    for (flag, setting) in flags {
        if let Some(value) = flag {
            *setting = Some(value.clone());
        }
    }
    if let Some(port) = args.peer_port {
        config.cluster.peer_port = Some(port);
    }
    if let Some(ms) = args.store_latency_ms {
        config.cluster.store_latency_ms = Some(ms);
    }
    Ok(config)
}

/// Runs the server until SIGINT or SIGTERM.
pub fn run(args: ServerArgs) -> Result<(), String> {
    let config = effective_config(&args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("strata-io")
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(serve(config))
}

async fn serve(config: ServerConfig) -> Result<(), String> {
    let mut shutdown = ShutdownSignal::listen();
    if config.cluster.is_cluster() {
        return cluster::serve_cluster(config, shutdown).await;
    }
    let description = format!("data in {}", config.data_dir.display());
    let serving = open_and_serve(&config, config.service.clone(), &description).await?;
    shutdown.wait().await;
    tracing::info!("shutting down: closing connections, then flushing memstores");
    serving.stop().await?;
    println!("strata server stopped");
    Ok(())
}

/// An open database and the network servers on it.
pub(crate) struct Serving {
    pub(crate) db: strata_db::Db,
    thrift: Endpoint,
    grpc: Option<Endpoint>,
    http: Option<http::HttpEndpoint>,
    hbase: hbase_rpc::HbaseEndpoints,
}

impl Serving {
    /// The HTTP endpoint's state, when the HTTP port is on.
    pub(crate) fn http_state(&self) -> Option<&Arc<strata_http::HttpState>> {
        self.http.as_ref().map(|h| &h.state)
    }

    /// Closes the connections, then flushes and closes the database.
    pub(crate) async fn stop(self) -> Result<(), String> {
        if let Some(http) = self.http {
            http.stop().await;
        }
        self.thrift.stop().await;
        self.hbase.stop().await;
        if let Some(grpc) = self.grpc {
            grpc.stop().await;
        }
        let db = self.db;
        tokio::task::spawn_blocking(move || db.close())
            .await
            .map_err(|e| format!("shutdown failed: {e}"))?
            .map_err(|e| format!("shutdown failed: {e}"))
    }
}

/// Opens the database with `service` options and starts every network server on it;
/// prints the one "listening" line (`description` says where the data is).
pub(crate) async fn open_and_serve(
    config: &ServerConfig,
    service: strata_server::ServiceOptions,
    description: &str,
) -> Result<Serving, String> {
    let db = open_db(service, description).await?;
    serve_db(config, db, description, hbase_rpc::HbaseSetup::Standalone).await
}

/// Opens the database with `service` options.
pub(crate) async fn open_db(
    service: strata_server::ServiceOptions,
    description: &str,
) -> Result<strata_db::Db, String> {
    // The database is opened through the embedded API (`strata-db`), as embedded programs
    // and `strata bench --target embedded` open it; the network adapters then call the
    // service layer under it, which every `strata_db` operation is a thin call into.
    let options = strata_db::Options::from_service_options(service);
    tokio::task::spawn_blocking(move || strata_db::Db::open_with(options))
        .await
        .map_err(|e| format!("open failed: {e}"))?
        .map_err(|e| format!("cannot open the database ({description}): {e}"))
}

/// Starts every network server on `db`; prints the one "listening" line.
pub(crate) async fn serve_db(
    config: &ServerConfig,
    db: strata_db::Db,
    description: &str,
    hbase: hbase_rpc::HbaseSetup,
) -> Result<Serving, String> {
    let service = Arc::clone(db.service());
    service.metrics().set_slow_threshold(config.slow_request);
    if let Some(warning) = security_warning(config) {
        tracing::warn!("{warning}");
    }
    let thrift_addr = SocketAddr::new(config.listen, config.thrift_port);
    let network = config.network;
    let thrift_tls = config.tls.as_ref().filter(|tls| tls.serves("thrift"));
    let thrift = start_thrift(&service, thrift_addr, network.thrift, thrift_tls).await?;
    let grpc = match config.grpc_port {
        0 => None,
        port => {
            let addr = SocketAddr::new(config.listen, port);
            let tls = config.tls.as_ref().filter(|tls| tls.serves("grpc"));
            Some(start_grpc(&service, addr, network.grpc, tls).await?)
        }
    };
    let http = match config.http_port {
        0 => None,
        port => {
            let addr = SocketAddr::new(config.listen, port);
            Some(http::start_http(&service, config, addr).await?)
        }
    };
    let hbase = hbase_rpc::start(&service, config, hbase).await?;
    let http_text = http
        .as_ref()
        .map(|h| format!(", http {}", h.endpoint.addr))
        .unwrap_or_default();
    let grpc_text = grpc
        .as_ref()
        .map(|g| format!(", grpc {}", g.addr))
        .unwrap_or_default();
    println!(
        "strata server listening on thrift {}{grpc_text}{http_text}{} ({description})",
        thrift.addr,
        hbase.describe(),
    );
    if let Some(interval) = config.mover_interval {
        start_mover(db.service(), interval);
    }
    Ok(Serving {
        db,
        thrift,
        grpc,
        http,
        hbase,
    })
}

/// The warning an exposed server without TLS or permission checks gets
/// (`tls::exposure_warning`).
pub(crate) fn security_warning(config: &ServerConfig) -> Option<String> {
    tls::exposure_warning(
        config.listen,
        config.cluster.is_cluster(),
        config.tls.as_ref(),
        config.security.access.enabled,
    )
}

/// Runs a mover pass and an archive pass every `interval` while the service exists
/// (holding it weakly: the service is dropped by its closing, not by this task). A pass
/// with nothing misplaced costs a walk over the open stores' file lists and a read of each
/// snapshot's descriptor.
// The binary is the composition root: its runtime runs the mover's timer.
#[allow(clippy::disallowed_methods)]
fn start_mover(service: &Arc<strata_server::Service>, interval: std::time::Duration) {
    let service = Arc::downgrade(service);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.tick().await; // the first tick is immediate
        loop {
            ticks.tick().await;
            let weak = service.clone();
            let pass = tokio::task::spawn_blocking(move || {
                let service = weak.upgrade()?;
                let engine = service.directory().engine();
                // Then the files only a snapshot still holds go to the archive tier.
                Some(engine.move_misplaced_files().and_then(|moved| {
                    let archived = engine.archive_snapshot_files()?;
                    Ok(strata_engine::MoveReport {
                        files: moved.files + archived.files,
                        bytes: moved.bytes + archived.bytes,
                        failed: moved.failed + archived.failed,
                    })
                }))
            });
            match pass.await {
                Ok(Some(Ok(report))) if report.files > 0 || report.failed > 0 => {
                    tracing::info!(
                        files = report.files,
                        bytes = report.bytes,
                        failed = report.failed,
                        "mover pass"
                    );
                }
                Ok(Some(Ok(_))) => {}
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "mover pass failed"),
                Ok(None) | Err(_) => return,
            }
        }
    });
}

/// What a server awaits to stop accepting and wind down.
pub(crate) type Shutdown = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// A running network server and the way to stop it.
pub(crate) struct Endpoint {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Endpoint {
    /// Binds `addr` (so a port in use is reported before "listening" is printed) and runs
    /// the `name` server that `serve` builds on it, until [`Endpoint::stop`].
    pub(crate) async fn start<F, E>(
        name: &'static str,
        addr: SocketAddr,
        serve: impl FnOnce(tokio::net::TcpListener, Shutdown) -> F,
    ) -> Result<Endpoint, String>
    where
        F: std::future::Future<Output = Result<(), E>> + Send + 'static,
        E: std::fmt::Display,
    {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        Endpoint::start_on(name, listener, serve)
    }

    /// [`Endpoint::start`] on a listener bound already.
    pub(crate) fn start_on<F, E>(
        name: &'static str,
        listener: tokio::net::TcpListener,
        serve: impl FnOnce(tokio::net::TcpListener, Shutdown) -> F,
    ) -> Result<Endpoint, String>
    where
        F: std::future::Future<Output = Result<(), E>> + Send + 'static,
        E: std::fmt::Display,
    {
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot listen for {name}: {e}"))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = serve(
            listener,
            Box::pin(async {
                let _ = stopped.await;
            }),
        );
        // The binary is the composition root: each listener is a task on its runtime.
        #[allow(clippy::disallowed_methods)]
        let task = tokio::spawn(async move {
            if let Err(e) = server.await {
                tracing::error!(error = %e, server = name, "server stopped with an error");
            }
        });
        Ok(Endpoint { addr, stop, task })
    }

    pub(crate) async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// Serves HBase's Thrift1 API on `addr`.
async fn start_thrift(
    service: &Arc<Service>,
    addr: SocketAddr,
    limits: strata_thrift::ThriftLimits,
    tls: Option<&tls::TlsSettings>,
) -> Result<Endpoint, String> {
    let service = Arc::clone(service);
    // Counted in the service's gauge, so `/metrics` sees the Thrift connections.
    let connections = strata_thrift::ConnectionCount::shared(
        service
            .connections()
            .counter(strata_server::connections::Api::Thrift),
    );
    let Some(tls) = tls else {
        return Endpoint::start("thrift", addr, |listener, shutdown| {
            strata_thrift::serve_listener_with(listener, service, limits, connections, shutdown)
        })
        .await;
    };
    // Thrift has no ALPN name: none is offered.
    let config = tls::server_config(tls, &[])?;
    Endpoint::start("thrift", addr, |listener, shutdown| {
        let listener = strata_tls::TlsListener::new(listener, config);
        strata_thrift::serve_tls_listener_with(listener, service, limits, connections, shutdown)
    })
    .await
}

/// Serves the Cloud Bigtable v2 Data and Table Admin APIs on `addr`.
async fn start_grpc(
    service: &Arc<Service>,
    addr: SocketAddr,
    limits: strata_grpc::GrpcLimits,
    tls: Option<&tls::TlsSettings>,
) -> Result<Endpoint, String> {
    let service = Arc::clone(service);
    let Some(tls) = tls else {
        return Endpoint::start("grpc", addr, |listener, shutdown| {
            strata_grpc::serve_listener_with(listener, service, limits, shutdown)
        })
        .await;
    };
    let config = tls::server_config(tls, &[b"h2"])?;
    Endpoint::start("grpc", addr, |listener, shutdown| {
        let listener = strata_tls::TlsListener::new(listener, config);
        strata_grpc::serve_tls_listener_with(listener, service, limits, shutdown)
    })
    .await
}
