//! The service every network API adapts onto: a facade over its components.
//!
//! - [`TableDirectory`] (`directory/`): namespaces, tables, the catalog and region routing;
//! - [`RowOperations`] (`rows/`): mutations, point reads and read-modify-writes;
//! - [`Splitter`] (`splitter.rs`): when regions split and merge;
//! - the scanner registry (`scanners/`; the service's scanner calls are `scanner_ops.rs`).
//!
//! The facade opens them, closes them and hands each call to the one that owns it; it holds
//! no logic of its own beyond operations composed of several components (`drop_range.rs`).

mod admin;
mod admin_at_master;
mod admin_served;
mod drop_range;
mod forwarded;
mod rows;

use std::path::PathBuf;
use std::sync::Arc;

use strata_engine::{Engine, EngineOptions};

use crate::directory::TableDirectory;
use crate::error::{Result, ServiceError};
use crate::rows::RowOperations;
use crate::scanners::ScannerRegistry;
use crate::splitter::Splitter;

/// How to open the service.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    pub engine: EngineOptions,
    /// A scanner idle this long is closed (HBase's scanner lease).
    pub scanner_lease: std::time::Duration,
    /// When regions split by themselves.
    pub split: crate::splitter::SplitPolicy,
    /// Request limits every API enforces.
    pub limits: crate::limits::Limits,
    /// Told before each region opens here (cluster mode); `None` standalone.
    pub region_registry: Option<Arc<dyn crate::registry::RegionRegistry>>,
    /// Asked before every read and write (cluster mode: the lease); `None` standalone.
    pub serving_gate: Option<Arc<dyn crate::registry::ServingGate>>,
    /// Where the catalog lives (cluster mode: etcd); `None` keeps it in the engine.
    pub catalog: Option<Arc<dyn crate::catalog::CatalogStore>>,
    /// Where the master is (cluster mode): administration is sent there unless this
    /// server is master. `None` standalone.
    pub master_link: Option<Arc<dyn crate::remote::MasterLink>>,
    /// The host clients are told to reach this server at, as the location of its own
    /// regions (cluster mode: `--advertise`); `None`: `localhost`.
    pub advertised_host: Option<String>,
}

impl ServiceOptions {
    /// Standalone defaults with data in `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        ServiceOptions {
            engine: EngineOptions::new(data_dir),
            scanner_lease: crate::scanners::SCANNER_LEASE,
            split: crate::splitter::SplitPolicy::default(),
            limits: crate::limits::Limits::default(),
            region_registry: None,
            serving_gate: None,
            catalog: None,
            master_link: None,
            advertised_host: None,
        }
    }
}

/// The one service every network API adapts onto.
pub struct Service {
    pub(crate) options: ServiceOptions,
    pub(crate) directory: Arc<TableDirectory>,
    rows: RowOperations,
    splitter: Arc<Splitter>,
    pub(crate) scanners: ScannerRegistry,
    pub(crate) metrics: Arc<crate::metrics::RequestMetrics>,
    connections: crate::connections::Connections,
    /// Bytes of requests being received and served (see `request_budget.rs`).
    request_budget: crate::request_budget::RequestBudget,
    cluster_admin: parking_lot::RwLock<Option<Arc<dyn crate::registry::ClusterAdmin>>>,
}

impl Service {
    /// The host clients reach this server at, for region locations (`localhost` unless
    /// the server advertises one).
    pub fn advertised_host(&self) -> &str {
        self.options
            .advertised_host
            .as_deref()
            .unwrap_or("localhost")
    }

    /// Opens the engine, loads the catalog and opens every table's regions.
    pub fn open(options: ServiceOptions) -> Result<Arc<Service>> {
        options
            .limits
            .validate()
            .map_err(ServiceError::InvalidArgument)?;
        let clock = Arc::clone(&options.engine.clock);
        let engine = Engine::open(options.engine.clone())?;
        let directory = Arc::new(TableDirectory::open(
            engine,
            Arc::clone(&clock),
            options.region_registry.clone(),
            options.catalog.clone(),
        )?);
        directory.set_serving_gate(options.serving_gate.clone());
        let metrics = Arc::new(crate::metrics::RequestMetrics::new(Arc::clone(&clock)));
        let splitter = Splitter::new(
            Arc::clone(&directory),
            options.split.clone(),
            options.engine.memstore_flush_size,
            Arc::clone(&metrics),
        );
        let rows = RowOperations::new(
            Arc::clone(&directory),
            Arc::clone(&splitter),
            options.limits.clone(),
            Arc::clone(&metrics),
            Arc::clone(&clock),
        );
        let request_budget =
            crate::request_budget::RequestBudget::new(options.limits.max_request_bytes_in_flight);
        let scanners = ScannerRegistry::new(clock, options.scanner_lease);
        Ok(Arc::new(Service {
            cluster_admin: parking_lot::RwLock::new(None),
            options,
            directory,
            rows,
            splitter,
            scanners,
            metrics,
            connections: crate::connections::Connections::default(),
            request_budget,
        }))
    }

    /// Flushes every open region, the catalog's too.
    pub fn flush_all(&self) -> Result<()> {
        Ok(self.directory.engine().flush_all()?)
    }

    /// Flushes everything and closes the engine.
    pub fn close(&self) -> Result<()> {
        self.scanners.clear();
        self.directory.clear();
        Ok(self.directory.engine().close()?)
    }

    /// The budget the network servers charge requests to while receiving and serving them.
    pub fn request_budget(&self) -> &crate::request_budget::RequestBudget {
        &self.request_budget
    }

    /// The request limits this service enforces.
    pub fn limits(&self) -> &crate::limits::Limits {
        &self.options.limits
    }

    /// The request metrics.
    pub fn metrics(&self) -> &crate::metrics::RequestMetrics {
        &self.metrics
    }

    /// Open client connections per API.
    pub fn connections(&self) -> &crate::connections::Connections {
        &self.connections
    }

    /// Parses a filter-language string within the configured filter limits.
    pub fn parse_filter(
        &self,
        text: &[u8],
    ) -> std::result::Result<crate::filter::Filter, crate::filter::FilterError> {
        crate::filter::parse_bytes_with(text, &self.options.limits.filter())
    }

    /// The engine (for statistics and tools).
    pub fn engine(&self) -> &Arc<Engine> {
        self.directory.engine()
    }

    /// Installs cluster administration (the server became master).
    pub fn set_cluster_admin(&self, admin: Arc<dyn crate::registry::ClusterAdmin>) {
        *self.cluster_admin.write() = Some(admin);
    }

    /// Cluster administration: the master's own; on another server of a cluster, one that
    /// has the master carry each call out; standalone, an error.
    pub fn cluster_admin(&self) -> Result<Arc<dyn crate::registry::ClusterAdmin>> {
        let Some(link) = &self.options.master_link else {
            return self.cluster_admin.read().clone().ok_or_else(|| {
                ServiceError::InvalidArgument("moves and the balancer need cluster mode".into())
            });
        };
        match (link.master(), self.cluster_admin.read().clone()) {
            (crate::remote::Master::Here, Some(own)) => Ok(own),
            _ => Ok(Arc::new(admin_at_master::AdminAtMaster(Arc::clone(link)))),
        }
    }

    /// How many masters and servers the cluster has (HBase's `status`): a standalone
    /// server is its one master and server.
    pub fn server_counts(&self) -> crate::cluster_members::ServerCounts {
        use crate::cluster_members::ServerCounts;
        match self
            .options
            .master_link
            .as_ref()
            .and_then(|link| link.members())
        {
            Some(members) => ServerCounts::of(&members),
            None => ServerCounts::STANDALONE,
        }
    }

    /// The table directory.
    pub fn directory(&self) -> &TableDirectory {
        &self.directory
    }
}
