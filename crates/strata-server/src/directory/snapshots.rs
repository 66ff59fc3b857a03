//! HBase's snapshot administration over the engine's snapshots: `snapshot`,
//! `list_snapshots`, `delete_snapshot`, `clone_snapshot` and `restore_snapshot`
//! ([`Snapshots`]: `take`, `list`, `delete`, `clone_to` and `restore`).
//!
//! The engine keeps each snapshot's files and an opaque copy of the table's schema; here
//! that copy is the table's name and its catalog record (`encode_snapshot_table`), so a
//! clone or restore recreates the families, their attributes and the region boundaries.
//! A clone's or restore's regions are written first and the catalog commit makes them the
//! table's; a crash before it leaves region directories no table lists, which the next
//! open retires.

use bytes::Bytes;
use strata_engine::codec::{put_len_prefixed, put_varint, Decoder};
use strata_engine::{RowRange, SnapshotDescriptor};

use super::open::open_table;
use super::TableDirectory;
use crate::catalog::{decode_table, encode_table, RegionEntry, TableRecord};
use crate::error::{Result, ServiceError};
use crate::names::{TableName, SYSTEM_NAMESPACE};

/// Version of the schema bytes a snapshot keeps (`docs/format.md`, "Snapshot descriptor").
const SNAPSHOT_TABLE_VERSION: u64 = 1;

/// A snapshot as `list_snapshots` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    pub name: String,
    pub table: TableName,
    /// Milliseconds since the epoch.
    pub created_at_ms: i64,
    pub regions: usize,
    pub files: usize,
    pub bytes: u64,
}

/// The snapshots of a directory's tables (see [`TableDirectory::snapshots`]).
pub struct Snapshots<'a> {
    pub(super) dir: &'a TableDirectory,
}

impl Snapshots<'_> {
    /// Takes snapshot `name` of `table` (enabled or disabled): each region is flushed and
    /// its files are held by hard links. Copies no data.
    pub fn take(&self, table: &TableName, name: &str) -> Result<()> {
        self.refuse_snapshots_in_cluster_mode()?;
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(table)?;
        if self.dir.engine.read_snapshot(name).is_ok() {
            return Err(ServiceError::SnapshotExists(name.to_string()));
        }
        let regions: Vec<(u64, RowRange)> = state
            .regions
            .iter()
            .map(|r| {
                let rows = RowRange {
                    start: r.entry.start_key.to_vec(),
                    end: r.entry.end_key.to_vec(),
                };
                (r.entry.id, rows)
            })
            .collect();
        let schema = encode_snapshot_table(table, &state.record);
        self.dir.engine.take_snapshot(name, schema, &regions)?;
        tracing::info!(table = %table, snapshot = name, "snapshot taken");
        Ok(())
    }

    /// Every snapshot, by name.
    pub fn list(&self) -> Result<Vec<SnapshotInfo>> {
        let mut out = Vec::new();
        for s in self.dir.engine.list_snapshots()? {
            let (table, _) = decode_snapshot_table(&s.table)?;
            out.push(SnapshotInfo {
                name: s.name,
                table,
                created_at_ms: s.created_at_ms,
                regions: s.regions,
                files: s.files,
                bytes: s.bytes,
            });
        }
        Ok(out)
    }

    /// Deletes a snapshot. Tables cloned or restored from it keep their data.
    pub fn delete(&self, name: &str) -> Result<()> {
        let _admin = self.dir.lock_admin();
        self.dir
            .engine
            .delete_snapshot(name)
            .map_err(|e| snapshot_error(name, e))?;
        tracing::info!(snapshot = name, "snapshot deleted");
        Ok(())
    }

    /// Creates table `table` (which must not exist) with the snapshot's schema, regions
    /// and data, enabled. The new table shares the snapshot's files by hard links.
    pub fn clone_to(&self, name: &str, table: &TableName) -> Result<()> {
        self.refuse_snapshots_in_cluster_mode()?;
        let _admin = self.dir.lock_admin();
        if table.namespace == SYSTEM_NAMESPACE {
            return Err(ServiceError::InvalidArgument(
                "the hbase namespace is reserved".into(),
            ));
        }
        if !self.dir.namespaces().exists(&table.namespace) {
            return Err(ServiceError::NamespaceNotFound(table.namespace.clone()));
        }
        if self.dir.tables.read().contains_key(table) {
            return Err(ServiceError::TableExists(table.to_string()));
        }
        let descriptor = self
            .dir
            .engine
            .read_snapshot(name)
            .map_err(|e| snapshot_error(name, e))?;
        let mut record = self.regions_from_snapshot(&descriptor)?;
        record.enabled = true;
        self.commit_snapshot_table(table, record)?;
        tracing::info!(table = %table, snapshot = name, "snapshot cloned");
        Ok(())
    }

    /// Puts the snapshot's table back as it was when the snapshot was taken: its schema,
    /// regions and data. The table must exist and be disabled, as in HBase; it stays
    /// disabled. Its current regions are dropped once the restored ones are committed.
    pub fn restore(&self, name: &str) -> Result<()> {
        self.refuse_snapshots_in_cluster_mode()?;
        let _admin = self.dir.lock_admin();
        let descriptor = self
            .dir
            .engine
            .read_snapshot(name)
            .map_err(|e| snapshot_error(name, e))?;
        let (table, _) = decode_snapshot_table(&descriptor.table)?;
        let old = self.dir.table(&table)?;
        if old.record.enabled {
            return Err(ServiceError::TableNotDisabled(table.to_string()));
        }
        let mut record = self.regions_from_snapshot(&descriptor)?;
        record.enabled = false;
        self.commit_snapshot_table(&table, record)?;
        for region in old.regions.iter().filter(|r| r.local().is_some()) {
            self.dir.engine.close_region(region.entry.id)?;
            self.dir.engine.drop_region(region.entry.id)?;
        }
        self.dir.engine.collect_retired()?;
        tracing::info!(table = %table, snapshot = name, "snapshot restored");
        Ok(())
    }

    /// Writes one new region per snapshot region and returns the snapshot's table record
    /// with those regions. On failure the regions written so far are removed.
    fn regions_from_snapshot(&self, descriptor: &SnapshotDescriptor) -> Result<TableRecord> {
        let (_, mut record) = decode_snapshot_table(&descriptor.table)?;
        let regions: Vec<RegionEntry> = descriptor
            .regions
            .iter()
            .map(|region| RegionEntry {
                id: self.dir.region_ids.allocate(),
                start_key: Bytes::from(region.rows.start.clone()),
                end_key: Bytes::from(region.rows.end.clone()),
            })
            .collect();
        let ids: Vec<u64> = regions.iter().map(|r| r.id).collect();
        let name = &descriptor.name;
        if let Err(e) = self
            .dir
            .engine
            .create_regions_from_snapshot(name, &record.families, &ids)
        {
            for id in ids {
                // Best effort: the next open retires what is left.
                let _ = self.dir.engine.remove_region_dirs(id);
            }
            return Err(snapshot_error(name, e));
        }
        record.regions = regions;
        Ok(record)
    }

    /// Opens a table's regions, commits its record to the catalog and publishes it.
    fn commit_snapshot_table(&self, table: &TableName, record: TableRecord) -> Result<()> {
        let state = open_table(&self.dir.opener, table.clone(), record.clone())?;
        self.dir.catalog.put_table(table, &record)?;
        self.dir.publish(state);
        // Regions made of another table's files compact into files of their own in time;
        // nothing else needs to happen first.
        Ok(())
    }

    fn refuse_snapshots_in_cluster_mode(&self) -> Result<()> {
        if self.dir.catalog.is_shared() {
            return Err(ServiceError::InvalidArgument(
                "snapshots are not available in cluster mode yet".into(),
            ));
        }
        Ok(())
    }
}

/// The engine's NotFound for a snapshot name becomes HBase's SnapshotDoesNotExist.
fn snapshot_error(name: &str, e: strata_engine::Error) -> ServiceError {
    match e {
        strata_engine::Error::NotFound(_) => ServiceError::SnapshotNotFound(name.to_string()),
        other => other.into(),
    }
}

/// The schema bytes a snapshot keeps: a version, the table's name, its catalog record.
fn encode_snapshot_table(table: &TableName, record: &TableRecord) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, SNAPSHOT_TABLE_VERSION);
    put_len_prefixed(&mut out, table.to_string().as_bytes());
    put_len_prefixed(&mut out, &encode_table(record));
    out
}

fn decode_snapshot_table(bytes: &[u8]) -> Result<(TableName, TableRecord)> {
    let bad = |why: &str| ServiceError::CatalogCorrupt(format!("snapshot schema: {why}"));
    let mut d = Decoder::new(bytes);
    match d.varint() {
        Some(SNAPSHOT_TABLE_VERSION) => {}
        other => return Err(bad(&format!("unknown version {other:?}"))),
    }
    let name = d.len_prefixed().ok_or_else(|| bad("no table name"))?;
    let name = std::str::from_utf8(name).map_err(|_| bad("table name is not UTF-8"))?;
    let table = TableName::parse(name)?;
    let record = decode_table(d.len_prefixed().ok_or_else(|| bad("no table record"))?)?;
    Ok((table, record))
}

#[cfg(test)]
mod tests {
    use strata_engine::FamilyOptions;

    use super::*;
    use crate::durability::WriteDurability;

    #[test]
    fn snapshot_schema_round_trips_and_damage_is_an_error() {
        let table = TableName::parse("ns:t").unwrap();
        let record = TableRecord {
            families: vec![FamilyOptions::new("cf")],
            enabled: false,
            regions: vec![RegionEntry {
                id: 7,
                start_key: Bytes::new(),
                end_key: Bytes::from_static(b"m"),
            }],
            durability: WriteDurability::AsyncWal,
            metadata: strata_engine::SchemaMetadata::default(),
        };
        let bytes = encode_snapshot_table(&table, &record);
        let (name, decoded) = decode_snapshot_table(&bytes).unwrap();
        assert_eq!(name, table);
        assert_eq!(decoded.families.len(), 1);
        assert_eq!(decoded.durability, WriteDurability::AsyncWal);
        for len in 0..bytes.len() {
            assert!(decode_snapshot_table(&bytes[..len]).is_err(), "len {len}");
        }
    }
}
