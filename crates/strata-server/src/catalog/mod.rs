//! The catalog: namespaces and tables. Standalone it lives in a system region of the engine
//! (like HBase's `hbase:meta`), so catalog changes get the WAL's durability and the
//! engine's checksums, and survive crashes and restarts like any data. Cluster mode keeps
//! it in etcd instead (every server reads it; only the master writes), through the same
//! [`CatalogStore`] seam.

pub(crate) mod codec;

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Cell, CellType, Durability, FamilyOptions, Region, Scan, LATEST_TIMESTAMP};

pub use codec::{
    decode_grants, decode_namespace, decode_table, encode_grants, encode_namespace, encode_table,
    NamespaceConfig, RegionEntry, TableRecord,
};
use strata_access::Grant;

use crate::error::{Result, ServiceError};
use crate::names::TableName;

/// The engine region holding the catalog. Table regions get ids from 1.
pub const CATALOG_REGION_ID: u64 = 0;
/// The catalog region's table name where regions are listed (cluster mode's directory).
pub const CATALOG_TABLE: &str = "strata:catalog";
const FAMILY: &[u8] = b"info";
const QUALIFIER: &[u8] = b"v";
const NAMESPACE_PREFIX: &[u8] = b"n:";
const TABLE_PREFIX: &[u8] = b"t:";
/// The one row holding every access-control grant.
const GRANTS_ROW: &[u8] = b"a:grants";

/// Everything the catalog holds, as loaded at startup.
#[derive(Debug, Clone, Default)]
pub struct CatalogContents {
    /// Every namespace with its configuration.
    pub namespaces: BTreeMap<String, NamespaceConfig>,
    pub tables: BTreeMap<TableName, TableRecord>,
    /// Every access-control grant (empty until the first grant).
    pub grants: Vec<Grant>,
}

/// Where the catalog's records are kept.
pub trait CatalogStore: Send + Sync + std::fmt::Debug {
    /// Reads every record.
    fn load(&self) -> Result<CatalogContents>;
    /// Records (or replaces) a namespace with its configuration.
    fn put_namespace(&self, namespace: &str, config: &NamespaceConfig) -> Result<()>;
    /// Removes a namespace.
    fn delete_namespace(&self, namespace: &str) -> Result<()>;
    /// Records (or replaces) a table.
    fn put_table(&self, name: &TableName, record: &TableRecord) -> Result<()>;
    /// Removes a table.
    fn delete_table(&self, name: &TableName) -> Result<()>;
    /// Replaces every access-control grant with `grants`.
    fn put_grants(&self, grants: &[Grant]) -> Result<()>;
}

/// Reads and writes catalog records.
#[derive(Debug, Clone)]
pub struct Catalog {
    store: Arc<dyn CatalogStore>,
    /// Given by the caller (cluster mode: in etcd, shared by every server), not the
    /// engine's own.
    shared: bool,
}

/// The catalog in the engine's system region.
pub struct RegionCatalog {
    region: Arc<Region>,
}

impl std::fmt::Debug for RegionCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegionCatalog")
            .field("region", &self.region.id())
            .finish()
    }
}

fn table_row(name: &TableName) -> Vec<u8> {
    [
        TABLE_PREFIX,
        name.namespace.as_bytes(),
        b":",
        name.name.as_bytes(),
    ]
    .concat()
}

fn namespace_row(namespace: &str) -> Vec<u8> {
    [NAMESPACE_PREFIX, namespace.as_bytes()].concat()
}

impl Catalog {
    /// The catalog in `store`, or (standalone) in the engine's system region, which
    /// `open_region` opens (the directory's opener: the catalog knows what the region is,
    /// not how regions are opened).
    pub(crate) fn open(
        store: Option<Arc<dyn CatalogStore>>,
        open_region: impl FnOnce(&str, &RegionEntry, &[FamilyOptions]) -> Result<Arc<Region>>,
    ) -> Result<Catalog> {
        let shared = store.is_some();
        let store = match store {
            Some(store) => store,
            None => Arc::new(RegionCatalog::open(open_region)?),
        };
        Ok(Catalog { store, shared })
    }

    /// True when other servers change it too.
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// Reads every record.
    pub fn load(&self) -> Result<CatalogContents> {
        self.store.load()
    }

    /// The highest region id any table uses (0 when there are none).
    pub fn max_region_id(contents: &CatalogContents) -> u64 {
        contents
            .tables
            .values()
            .flat_map(|t| t.regions.iter().map(|r| r.id))
            .max()
            .unwrap_or(CATALOG_REGION_ID)
    }

    /// Records (or replaces) a namespace with its configuration.
    pub fn put_namespace(&self, namespace: &str, config: &NamespaceConfig) -> Result<()> {
        self.store.put_namespace(namespace, config)
    }

    /// Removes a namespace.
    pub fn delete_namespace(&self, namespace: &str) -> Result<()> {
        self.store.delete_namespace(namespace)
    }

    /// Records (or replaces) a table.
    pub fn put_table(&self, name: &TableName, record: &TableRecord) -> Result<()> {
        self.store.put_table(name, record)
    }

    /// Removes a table.
    pub fn delete_table(&self, name: &TableName) -> Result<()> {
        self.store.delete_table(name)
    }

    /// Replaces every access-control grant with `grants`.
    pub fn put_grants(&self, grants: &[Grant]) -> Result<()> {
        self.store.put_grants(grants)
    }

    /// True if the table's record exists (used by tests).
    pub fn has_table(&self, name: &TableName) -> Result<bool> {
        Ok(self.load()?.tables.contains_key(name))
    }
}

impl RegionCatalog {
    /// Opens the catalog region.
    fn open(
        open_region: impl FnOnce(&str, &RegionEntry, &[FamilyOptions]) -> Result<Arc<Region>>,
    ) -> Result<RegionCatalog> {
        let mut family = FamilyOptions::new(FAMILY);
        family.in_memory = true;
        let entry = RegionEntry {
            id: CATALOG_REGION_ID,
            start_key: Bytes::new(),
            end_key: Bytes::new(),
        };
        let region = open_region(CATALOG_TABLE, &entry, &[family])?;
        Ok(RegionCatalog { region })
    }

    fn put(&self, row: Vec<u8>, value: Vec<u8>) -> Result<()> {
        let cell = Cell::put(row, FAMILY, QUALIFIER, LATEST_TIMESTAMP, value);
        self.region.mutate(vec![cell], Durability::FsyncWal)?;
        Ok(())
    }

    fn delete(&self, row: Vec<u8>) -> Result<()> {
        let cell = Cell::delete(
            row,
            FAMILY,
            Bytes::new(),
            LATEST_TIMESTAMP,
            CellType::DeleteFamily,
        );
        self.region.mutate(vec![cell], Durability::FsyncWal)?;
        Ok(())
    }
}

impl CatalogStore for RegionCatalog {
    fn load(&self) -> Result<CatalogContents> {
        let mut contents = CatalogContents::default();
        for row in self.region.scan(&Scan::new())? {
            let row = row?;
            let value = row
                .cells
                .first()
                .map(|c| c.value.clone())
                .unwrap_or_default();
            if let Some(ns) = row.row.strip_prefix(NAMESPACE_PREFIX) {
                contents.namespaces.insert(
                    String::from_utf8_lossy(ns).into_owned(),
                    codec::decode_namespace(&value)?,
                );
            } else if let Some(rest) = row.row.strip_prefix(TABLE_PREFIX) {
                let name = TableName::from_bytes(rest).map_err(|_| {
                    ServiceError::CatalogCorrupt(format!("bad table row {:?}", row.row))
                })?;
                contents.tables.insert(name, codec::decode_table(&value)?);
            } else if row.row.as_ref() == GRANTS_ROW {
                contents.grants = codec::decode_grants(&value)?;
            }
        }
        Ok(contents)
    }

    fn put_namespace(&self, namespace: &str, config: &NamespaceConfig) -> Result<()> {
        self.put(namespace_row(namespace), codec::encode_namespace(config))
    }

    fn delete_namespace(&self, namespace: &str) -> Result<()> {
        self.delete(namespace_row(namespace))
    }

    fn put_table(&self, name: &TableName, record: &TableRecord) -> Result<()> {
        self.put(table_row(name), codec::encode_table(record))
    }

    fn delete_table(&self, name: &TableName) -> Result<()> {
        self.delete(table_row(name))
    }

    fn put_grants(&self, grants: &[Grant]) -> Result<()> {
        self.put(GRANTS_ROW.to_vec(), codec::encode_grants(grants))
    }
}
