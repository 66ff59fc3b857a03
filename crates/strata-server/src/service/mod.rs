//! The service every network API adapts onto: it opens the components, closes them and
//! hands out the shared things (limits, metrics, connections, the request budget). Each
//! adapter calls the component a request belongs to, through [`Service::rows`],
//! [`Service::scanners`], [`Service::admin`] and [`Service::peer_serving`]:
//!
//! - [`Rows`] (`rows.rs`): mutations, point reads, single-row read-modify-writes, and
//!   dropping rows by prefix (`drop_range/`), over [`RowOperations`] (`crate::rows`);
//! - [`Scanners`] (`scanners.rs`): scanners over the registry (`crate::scanners`) and
//!   unregistered row streams;
//! - [`Admin`] (`admin/`): namespaces, tables, regions (splits and merges by the
//!   [`Splitter`]) and cluster administration, sent to the master in cluster mode;
//! - [`PeerServing`] (`forwarded.rs`, `admin_served.rs`): requests other servers forward
//!   here, for the peer server.
//!
//! Each owns handles to what it needs (the [`TableDirectory`] above all), not to the service.

mod admin;
mod admin_served;
mod drop_range;
mod forwarded;
mod rows;
mod scanners;

pub use admin::Admin;
pub use forwarded::PeerServing;
pub use rows::Rows;
pub use scanners::Scanners;

use std::path::PathBuf;
use std::sync::Arc;

use strata_engine::{Engine, EngineOptions};

use crate::access::AccessControl;
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
    /// Whether permissions are checked (off unless configured) and who the superusers are.
    pub access: crate::access::AccessConfig,
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
            access: crate::access::AccessConfig::default(),
        }
    }
}

/// The one service every network API adapts onto: its components and what they share.
pub struct Service {
    options: ServiceOptions,
    directory: Arc<TableDirectory>,
    rows: Rows,
    scanners: Scanners,
    admin: Arc<Admin>,
    peer_serving: PeerServing,
    metrics: Arc<crate::metrics::RequestMetrics>,
    connections: crate::connections::Connections,
    /// Bytes of requests being received and served (see `request_budget.rs`).
    request_budget: crate::request_budget::RequestBudget,
    access: Arc<AccessControl>,
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
        let access = Arc::new(AccessControl::new(
            options.access.clone(),
            Arc::clone(directory.grants()),
        ));
        let components = Components::open(&options, &directory, &metrics, &access);
        let request_budget =
            crate::request_budget::RequestBudget::new(options.limits.max_request_bytes_in_flight);
        Ok(Arc::new(Service {
            options,
            directory,
            rows: components.rows,
            scanners: components.scanners,
            admin: components.admin,
            peer_serving: components.peer_serving,
            metrics,
            connections: crate::connections::Connections::default(),
            request_budget,
            access,
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

    /// The access checks and the grants in force.
    pub fn access(&self) -> &AccessControl {
        &self.access
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

    /// Row operations.
    pub fn rows(&self) -> &Rows {
        &self.rows
    }

    /// Scanners and row streams.
    pub fn scanners(&self) -> &Scanners {
        &self.scanners
    }

    /// The table directory.
    pub fn directory(&self) -> &TableDirectory {
        &self.directory
    }

    /// Namespace, table, region and cluster administration.
    pub fn admin(&self) -> &Admin {
        &self.admin
    }

    /// Requests other servers forward here (cluster mode).
    pub fn peer_serving(&self) -> &PeerServing {
        &self.peer_serving
    }
}

/// The service's components, each given handles to the shared parts it uses.
struct Components {
    rows: Rows,
    scanners: Scanners,
    admin: Arc<Admin>,
    peer_serving: PeerServing,
}

impl Components {
    fn open(
        options: &ServiceOptions,
        directory: &Arc<TableDirectory>,
        metrics: &Arc<crate::metrics::RequestMetrics>,
        access: &Arc<AccessControl>,
    ) -> Components {
        let clock = &options.engine.clock;
        let splitter = Splitter::new(
            Arc::clone(directory),
            options.split.clone(),
            options.engine.memstore_flush_size,
            Arc::clone(metrics),
        );
        let row_ops = Arc::new(RowOperations::new(
            Arc::clone(directory),
            Arc::clone(&splitter),
            options.limits.clone(),
            Arc::clone(metrics),
            Arc::clone(clock),
        ));
        let scanners = Scanners::new(
            Arc::clone(directory),
            ScannerRegistry::new(Arc::clone(clock), options.scanner_lease),
            Arc::clone(metrics),
            options.limits.clone(),
            Arc::clone(access),
        );
        let admin = Arc::new(Admin::new(
            Arc::clone(directory),
            splitter,
            options.master_link.clone(),
            Arc::clone(access),
        ));
        let peer_serving = PeerServing {
            directory: Arc::clone(directory),
            rows: Arc::clone(&row_ops),
            admin: Arc::clone(&admin),
        };
        let rows = Rows {
            ops: row_ops,
            directory: Arc::clone(directory),
            access: Arc::clone(access),
        };
        Components {
            rows,
            scanners,
            admin,
            peer_serving,
        }
    }
}
