//! HBase's native RPC and the read-only ZooKeeper endpoint Java clients find it through.
//! Both have well-known default ports another program may hold (a real HBase, a
//! ZooKeeper); a default port in use is skipped with a warning, a port the user set must
//! be free.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use strata_hrpc::{ServerAddr, SingleServer, Topology};
use strata_server::Service;

use super::config::{DefaultedPort, ServerConfig};
use super::Endpoint;

/// The running endpoints (either may be off).
pub(crate) struct HbaseEndpoints {
    pub(crate) rpc: Option<Endpoint>,
    pub(crate) zookeeper: Option<Endpoint>,
}

impl HbaseEndpoints {
    pub(crate) fn describe(&self) -> String {
        let mut text = String::new();
        if let Some(rpc) = &self.rpc {
            text.push_str(&format!(", hbase {}", rpc.addr));
        }
        if let Some(zk) = &self.zookeeper {
            text.push_str(&format!(", zookeeper {}", zk.addr));
        }
        text
    }

    pub(crate) async fn stop(self) {
        if let Some(zk) = self.zookeeper {
            zk.stop().await;
        }
        if let Some(rpc) = self.rpc {
            rpc.stop().await;
        }
    }
}

/// Binds `port` on `listen`; `None` when it is off, or a default one is taken.
async fn bind(
    listen: IpAddr,
    port: DefaultedPort,
    what: &str,
    flag: &str,
) -> Result<Option<tokio::net::TcpListener>, String> {
    if port.port == 0 {
        return Ok(None);
    }
    let addr = SocketAddr::new(listen, port.port);
    match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => Ok(Some(listener)),
        Err(e) if !port.explicit => {
            tracing::warn!(
                "{what} is off: its default port {addr} is taken ({e}); choose another with {flag}"
            );
            Ok(None)
        }
        Err(e) => Err(format!("cannot listen on {addr}: {e}")),
    }
}

/// The host clients are told to reach this server at.
fn advertised_host(config: &ServerConfig) -> String {
    if let Some(host) = &config.cluster.advertise {
        return host.clone();
    }
    if config.listen.is_unspecified() {
        tracing::warn!(
            "listening on {} without --advertise: HBase clients are told 127.0.0.1",
            config.listen
        );
        return "127.0.0.1".to_string();
    }
    config.listen.to_string()
}

/// A cluster id in HBase's UUID form that stays the same for one `name` (a data
/// directory standalone, the cluster's name in cluster mode, so every member gives one).
pub(crate) fn cluster_id(name: &str) -> String {
    let hash = twox_hash::XxHash3_128::oneshot(name.as_bytes());
    let hex = format!("{hash:032x}");
    let parts = [
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..],
    ];
    parts.join("-")
}

/// How the HBase endpoints learn who serves what.
pub(crate) enum HbaseSetup {
    /// This server is the whole cluster: bind the configured port and serve every region.
    Standalone,
    /// Cluster mode: the listener was bound before the server joined (its port is in the
    /// membership record), and the topology follows the cluster.
    Bound {
        listener: Option<tokio::net::TcpListener>,
        topology: Arc<dyn Topology>,
    },
}

/// Binds the HBase RPC port (before a cluster server joins); `None` when it is off.
pub(crate) async fn bind_rpc(
    config: &ServerConfig,
) -> Result<Option<tokio::net::TcpListener>, String> {
    bind(
        config.listen,
        config.hbase_port,
        "HBase RPC",
        "--hbase-port",
    )
    .await
}

/// The server's start time in ms: HBase's start code.
// The binary is the composition root: it reads the system clock.
#[allow(clippy::disallowed_methods)]
fn start_code() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Starts the HBase RPC endpoint and, with it, the ZooKeeper endpoint.
pub(crate) async fn start(
    service: &Arc<Service>,
    config: &ServerConfig,
    setup: HbaseSetup,
) -> Result<HbaseEndpoints, String> {
    let (listener, topology) = match setup {
        HbaseSetup::Bound { listener, topology } => (listener, Some(topology)),
        HbaseSetup::Standalone => (bind_rpc(config).await?, None),
    };
    let Some(listener) = listener else {
        return Ok(HbaseEndpoints {
            rpc: None,
            zookeeper: None,
        });
    };
    let topology = match topology {
        Some(topology) => topology,
        None => standalone_topology(config, &listener)?,
    };
    let mut ctx = strata_hrpc::Context::new(Arc::clone(service), Arc::clone(&topology));
    if config.security.simple_authentication {
        ctx = ctx.with_simple_authentication();
    }
    let ctx = Arc::new(ctx);
    let runtime = tokio::runtime::Handle::current();
    let rpc = Endpoint::start_on(
        "hbase-rpc",
        listener,
        move |listener, shutdown| async move {
            strata_hrpc::serve_listener(listener, ctx, runtime, Default::default(), shutdown).await;
            Ok::<(), std::convert::Infallible>(())
        },
    )?;
    let zookeeper = match bind(
        config.listen,
        config.zookeeper_port,
        "the ZooKeeper endpoint",
        "--zookeeper-port",
    )
    .await?
    {
        None => None,
        Some(listener) => Some(start_zookeeper(listener, topology)?),
    };
    Ok(HbaseEndpoints {
        rpc: Some(rpc),
        zookeeper,
    })
}

fn standalone_topology(
    config: &ServerConfig,
    listener: &tokio::net::TcpListener,
) -> Result<Arc<dyn Topology>, String> {
    let port = listener
        .local_addr()
        .map_err(|e| format!("cannot listen for HBase RPC: {e}"))?
        .port();
    Ok(Arc::new(SingleServer {
        cluster_id: cluster_id(&config.data_dir.to_string_lossy()),
        addr: ServerAddr {
            host: advertised_host(config),
            port,
            start_code: start_code(),
        },
    }))
}

fn start_zookeeper(
    listener: tokio::net::TcpListener,
    topology: Arc<dyn Topology>,
) -> Result<Endpoint, String> {
    use strata_hrpc::znodes;
    let (a, b, c) = (Arc::clone(&topology), Arc::clone(&topology), topology);
    let tree = strata_zk::ComputedTree::new()
        .computed(znodes::CLUSTER_ID, move || {
            Some(znodes::cluster_id(a.as_ref()))
        })
        .and_then(|t| t.computed(znodes::MASTER, move || znodes::master(b.as_ref())))
        .and_then(|t| {
            t.computed(znodes::META_REGION_SERVER, move || {
                Some(znodes::meta_region_server(c.as_ref()))
            })
        })
        .map_err(|e| format!("cannot build the ZooKeeper tree: {e}"))?;
    let tree: Arc<dyn strata_zk::ZkTree> = Arc::new(tree);
    // The binary is the composition root: the facade times sessions on the system clock.
    #[allow(clippy::disallowed_methods)]
    let clock = strata_runtime::clock::system();
    Endpoint::start_on(
        "zookeeper",
        listener,
        move |listener, shutdown| async move {
            strata_zk::serve_listener(
                listener,
                tree,
                strata_zk::ZkConfig::default(),
                clock,
                shutdown,
            )
            .await;
            Ok::<(), std::convert::Infallible>(())
        },
    )
}
