//! The service: opens the engine and the catalog, and implements namespace and table
//! administration. Row operations are in `row_ops.rs` and `locked_row.rs`, scanners in `scanner_ops.rs` and `scanners/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};
use strata_engine::{Engine, EngineOptions, FamilyOptions, RegionSpec};

use crate::catalog::{Catalog, RegionEntry, TableRecord};
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::names::{check_namespace, TableName, DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
use crate::scanners::ScannerRegistry;
use crate::table::{region_ranges, OpenRegion, RegionInfo, TableDescriptor, TableState};

/// How to open the service.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    pub engine: EngineOptions,
    /// A scanner idle this long is closed (HBase's scanner lease).
    pub scanner_lease: std::time::Duration,
    /// When regions split by themselves.
    pub split: crate::split::SplitPolicy,
    /// Request limits every API enforces.
    pub limits: crate::limits::Limits,
}

impl ServiceOptions {
    /// Standalone defaults with data in `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        ServiceOptions {
            engine: EngineOptions::new(data_dir),
            scanner_lease: crate::scanners::SCANNER_LEASE,
            split: crate::split::SplitPolicy::default(),
            limits: crate::limits::Limits::default(),
        }
    }
}

/// The one service every network API adapts onto.
pub struct Service {
    pub(crate) engine: Arc<Engine>,
    pub(crate) options: ServiceOptions,
    pub(crate) catalog: Catalog,
    /// Serialises catalog changes (creates, drops, enables, splits, merges); reads never
    /// take it.
    pub(crate) admin: Mutex<()>,
    namespaces: RwLock<BTreeSet<String>>,
    pub(crate) tables: RwLock<BTreeMap<TableName, Arc<TableState>>>,
    pub(crate) next_region_id: AtomicU64,
    pub(crate) scanners: ScannerRegistry,
    pub(crate) row_locks: crate::row_locks::RowLocks,
    /// Regions an automatic split is under way for.
    pub(crate) splitting: Mutex<std::collections::HashSet<u64>>,
    /// Itself, for background splits.
    pub(crate) me: std::sync::Weak<Service>,
    pub(crate) metrics: crate::metrics::RequestMetrics,
    pub(crate) connections: crate::connections::Connections,
    /// Bytes of writes between acceptance and their memstores (see `write_budget.rs`).
    pub(crate) write_budget: crate::write_budget::WriteBudget,
    /// Bytes of requests being received and served (see `request_budget.rs`).
    request_budget: crate::request_budget::RequestBudget,
}

impl Service {
    /// Opens the engine, loads the catalog and opens every table's regions.
    pub fn open(options: ServiceOptions) -> Result<Arc<Service>> {
        options
            .limits
            .validate()
            .map_err(ServiceError::InvalidArgument)?;
        let engine = Engine::open(options.engine.clone())?;
        let catalog = Catalog::open(&engine)?;
        let contents = catalog.load()?;
        // Above every directory too: a retired parent's files may outlive its catalog entry.
        let on_disk = engine.region_ids_on_disk()?.last().copied().unwrap_or(0);
        let next_region_id = Catalog::max_region_id(&contents).max(on_disk) + 1;
        let mut namespaces = contents.namespaces;
        namespaces.insert(DEFAULT_NAMESPACE.to_string());
        namespaces.insert(SYSTEM_NAMESPACE.to_string());
        let mut tables = BTreeMap::new();
        for (name, record) in contents.tables {
            let state = open_table(&engine, name.clone(), record)?;
            tables.insert(name, Arc::new(state));
        }
        tracing::info!(tables = tables.len(), "catalog loaded");
        // Leftovers of splits and merges: uncommitted new regions, and retired ones whose
        // references are gone (see `split.rs`).
        let live: std::collections::HashSet<u64> =
            std::iter::once(crate::catalog::CATALOG_REGION_ID)
                .chain(
                    tables
                        .values()
                        .flat_map(|t: &Arc<TableState>| t.regions.iter().map(|r| r.entry.id)),
                )
                .collect();
        engine.retire_all_except(&live)?;
        let metrics = crate::metrics::RequestMetrics::new(Arc::clone(&options.engine.clock));
        let write_budget =
            crate::write_budget::WriteBudget::new(options.limits.max_write_bytes_in_flight);
        let request_budget =
            crate::request_budget::RequestBudget::new(options.limits.max_request_bytes_in_flight);
        let scanners =
            ScannerRegistry::new(Arc::clone(&options.engine.clock), options.scanner_lease);
        Ok(Arc::new_cyclic(|me| Service {
            engine,
            options,
            catalog,
            admin: Mutex::new(()),
            namespaces: RwLock::new(namespaces),
            tables: RwLock::new(tables),
            next_region_id: AtomicU64::new(next_region_id),
            scanners,
            row_locks: crate::row_locks::RowLocks::default(),
            splitting: Mutex::new(std::collections::HashSet::new()),
            me: me.clone(),
            metrics,
            connections: crate::connections::Connections::default(),
            write_budget,
            request_budget,
        }))
    }

    pub(crate) fn allocate_region_id(&self) -> u64 {
        self.next_region_id.fetch_add(1, Ordering::AcqRel)
    }

    /// Flushes everything and closes the engine.
    pub fn close(&self) -> Result<()> {
        self.scanners.clear();
        self.tables.write().clear();
        Ok(self.engine.close()?)
    }

    /// The request limits this service enforces.
    /// The budget the network servers charge requests to while receiving and serving them.
    pub fn request_budget(&self) -> &crate::request_budget::RequestBudget {
        &self.request_budget
    }

    pub fn limits(&self) -> &crate::limits::Limits {
        &self.options.limits
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
        &self.engine
    }

    pub(crate) fn table(&self, name: &TableName) -> Result<Arc<TableState>> {
        self.tables
            .read()
            .get(name)
            .cloned()
            .ok_or_else(|| ServiceError::TableNotFound(name.to_string()))
    }

    /// Every namespace.
    pub fn list_namespaces(&self) -> Vec<String> {
        self.namespaces.read().iter().cloned().collect()
    }

    /// Creates a namespace.
    pub fn create_namespace(&self, namespace: &str) -> Result<()> {
        check_namespace(namespace)?;
        let _admin = self.admin.lock();
        if self.namespaces.read().contains(namespace) {
            return Err(ServiceError::NamespaceExists(namespace.to_string()));
        }
        self.catalog.put_namespace(namespace)?;
        self.namespaces.write().insert(namespace.to_string());
        Ok(())
    }

    /// Drops an empty namespace (the default and system namespaces cannot be dropped).
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        let _admin = self.admin.lock();
        if namespace == DEFAULT_NAMESPACE || namespace == SYSTEM_NAMESPACE {
            return Err(ServiceError::InvalidArgument(format!(
                "namespace {namespace} cannot be dropped"
            )));
        }
        if !self.namespaces.read().contains(namespace) {
            return Err(ServiceError::NamespaceNotFound(namespace.to_string()));
        }
        if self.tables.read().keys().any(|t| t.namespace == namespace) {
            return Err(ServiceError::NamespaceNotEmpty(namespace.to_string()));
        }
        self.catalog.delete_namespace(namespace)?;
        self.namespaces.write().remove(namespace);
        Ok(())
    }

    /// Every table, in name order.
    pub fn list_tables(&self) -> Vec<TableName> {
        self.tables.read().keys().cloned().collect()
    }

    /// Creates an enabled table with `families`, pre-split at `split_keys`.
    pub fn create_table(
        &self,
        name: &TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
    ) -> Result<()> {
        self.create_table_with_durability(name, families, split_keys, WriteDurability::UseDefault)
    }

    /// [`Service::create_table`] with the table's DURABILITY attribute.
    pub fn create_table_with_durability(
        &self,
        name: &TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
        durability: WriteDurability,
    ) -> Result<()> {
        check_families(&families)?;
        let ranges = region_ranges(&split_keys)?;
        let _admin = self.admin.lock();
        if name.namespace == SYSTEM_NAMESPACE {
            return Err(ServiceError::InvalidArgument(
                "the hbase namespace is reserved".into(),
            ));
        }
        if !self.namespaces.read().contains(&name.namespace) {
            return Err(ServiceError::NamespaceNotFound(name.namespace.clone()));
        }
        if self.tables.read().contains_key(name) {
            return Err(ServiceError::TableExists(name.to_string()));
        }
        let regions = ranges
            .into_iter()
            .map(|(start_key, end_key)| RegionEntry {
                id: self.allocate_region_id(),
                start_key,
                end_key,
            })
            .collect();
        let record = TableRecord {
            families,
            enabled: true,
            regions,
            durability,
        };
        let state = open_table(&self.engine, name.clone(), record.clone())?;
        self.catalog.put_table(name, &record)?;
        self.tables.write().insert(name.clone(), Arc::new(state));
        tracing::info!(table = %name, "table created");
        Ok(())
    }

    /// Deletes a disabled table and its data.
    pub fn delete_table(&self, name: &TableName) -> Result<()> {
        let _admin = self.admin.lock();
        let state = self.table(name)?;
        if state.record.enabled {
            return Err(ServiceError::TableNotDisabled(name.to_string()));
        }
        self.catalog.delete_table(name)?;
        self.tables.write().remove(name);
        for region in &state.regions {
            self.engine.close_region(region.entry.id)?;
            self.engine.drop_region(region.entry.id)?;
        }
        // Parents of its regions' splits are referenced no more.
        self.engine.collect_retired()?;
        tracing::info!(table = %name, "table deleted");
        Ok(())
    }

    fn set_enabled(&self, name: &TableName, enabled: bool) -> Result<()> {
        let _admin = self.admin.lock();
        let state = self.table(name)?;
        // Like HBase: enabling an enabled table or disabling a disabled one is an error.
        match (state.record.enabled, enabled) {
            (true, true) => return Err(ServiceError::TableNotDisabled(name.to_string())),
            (false, false) => return Err(ServiceError::TableDisabled(name.to_string())),
            _ => {}
        }
        let mut record = state.record.clone();
        record.enabled = enabled;
        self.catalog.put_table(name, &record)?;
        let regions = state
            .regions
            .iter()
            .map(|r| OpenRegion {
                entry: r.entry.clone(),
                region: Arc::clone(&r.region),
            })
            .collect();
        let next = TableState {
            name: name.clone(),
            record,
            regions,
        };
        self.tables.write().insert(name.clone(), Arc::new(next));
        Ok(())
    }

    /// Enables a table.
    pub fn enable_table(&self, name: &TableName) -> Result<()> {
        self.set_enabled(name, true)
    }

    /// Disables a table: reads and writes are refused until it is enabled again.
    pub fn disable_table(&self, name: &TableName) -> Result<()> {
        self.set_enabled(name, false)
    }

    /// True if the table is enabled.
    pub fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        Ok(self.table(name)?.record.enabled)
    }

    /// The table's schema.
    pub fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        let state = self.table(name)?;
        Ok(TableDescriptor {
            name: name.clone(),
            families: state.record.families.clone(),
            durability: state.record.durability,
        })
    }

    /// The table's regions.
    pub fn table_regions(&self, name: &TableName) -> Result<Vec<RegionInfo>> {
        Ok(self.table(name)?.region_infos())
    }

    /// Flushes every region of the table.
    pub fn flush_table(&self, name: &TableName) -> Result<()> {
        for r in &self.table(name)?.regions {
            r.region.flush()?;
        }
        Ok(())
    }

    /// Compacts every region of the table (after a flush, for a major compaction).
    pub fn compact_table(&self, name: &TableName, major: bool) -> Result<()> {
        for r in &self.table(name)?.regions {
            if major {
                r.region.flush()?;
            }
            r.region.compact(major)?;
        }
        Ok(())
    }
}

/// Checks family names and settings. A table may have no family at all: Bigtable creates
/// tables that way and adds families later (HBase's own rule of at least one family is kept
/// by the Thrift adapter, which answers like HBase).
pub(crate) fn check_families(families: &[FamilyOptions]) -> Result<()> {
    let mut seen = BTreeSet::new();
    for f in families {
        let printable =
            !f.name.is_empty() && f.name.iter().all(|b| b.is_ascii_graphic() && *b != b':');
        if !printable || f.name.starts_with(b".") {
            return Err(ServiceError::InvalidArgument(format!(
                "illegal column family name {:?}",
                String::from_utf8_lossy(&f.name)
            )));
        }
        if !seen.insert(&f.name) {
            return Err(ServiceError::InvalidArgument(
                "a column family is listed twice".into(),
            ));
        }
        if f.max_versions == 0 {
            return Err(ServiceError::InvalidArgument(
                "VERSIONS must be at least 1".into(),
            ));
        }
    }
    Ok(())
}

pub(crate) fn open_table(
    engine: &Engine,
    name: TableName,
    record: TableRecord,
) -> Result<TableState> {
    let mut regions = Vec::with_capacity(record.regions.len());
    for entry in &record.regions {
        let region = engine.open_region(RegionSpec {
            id: entry.id,
            families: record.families.clone(),
        })?;
        regions.push(OpenRegion {
            entry: entry.clone(),
            region,
        });
    }
    regions.sort_by(|a, b| a.entry.start_key.cmp(&b.entry.start_key));
    Ok(TableState {
        name,
        record,
        regions,
    })
}
