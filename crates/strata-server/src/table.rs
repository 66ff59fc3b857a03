//! An open table: its catalog record and its open regions, ordered by start key.

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Durability, FamilyOptions, Region, SchemaMetadata};

use crate::catalog::{RegionEntry, TableRecord};
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::remote::{PeerTable, RegionPeer, ServerAddress};

/// A region with its key range, and where it is served.
pub struct OpenRegion {
    pub entry: RegionEntry,
    pub location: RegionLocation,
}

/// Where a region is served: open in this server's engine, or on another server that
/// requests for it are forwarded to (cluster mode; see `remote/`).
#[derive(Clone)]
pub enum RegionLocation {
    Here(Arc<Region>),
    Peer(Arc<dyn RegionPeer>),
}

impl OpenRegion {
    /// The region, when this server serves it.
    pub fn local(&self) -> Option<&Arc<Region>> {
        match &self.location {
            RegionLocation::Here(region) => Some(region),
            RegionLocation::Peer(_) => None,
        }
    }

    /// The region when this server serves it, else the error a caller that needs it
    /// here answers (a retryable one: the region is served elsewhere).
    pub fn local_or_unavailable(&self, table: &TableName) -> Result<&Arc<Region>> {
        self.local().ok_or_else(|| self.not_served_here(table))
    }

    /// The retryable error for a request that needs this region here when it is not.
    pub fn not_served_here(&self, table: &TableName) -> ServiceError {
        ServiceError::NotServingRegion {
            table: table.to_string(),
            region: self.entry.id,
        }
    }
}

/// An open table. Immutable: changes (enable, disable) build a new one.
pub struct TableState {
    pub name: TableName,
    pub record: TableRecord,
    /// Sorted by start key; together they cover every row.
    pub regions: Vec<OpenRegion>,
    /// A digest of `record`, computed once: every request forwarded to a peer names it.
    schema: u64,
}

/// A table's regions as adapters report them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    pub id: u64,
    pub start_key: Bytes,
    pub end_key: Bytes,
    /// HBase-style region name: `table,start_key,id`.
    pub name: String,
    pub served_by: ServedBy,
}

/// Which server serves a region, as a client asking for region locations is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServedBy {
    /// The server answering (every region, in standalone mode).
    ThisServer,
    /// Another server of the cluster.
    Peer(ServerAddress),
    /// No server at the moment (being moved or recovered), or one whose address is unknown.
    Nobody,
}

/// A table's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDescriptor {
    pub name: TableName,
    pub families: Vec<FamilyOptions>,
    /// The table's DURABILITY attribute.
    pub durability: WriteDurability,
    /// The table's attributes and configuration Strata keeps without acting on them
    /// (HBase's `SPLIT_POLICY`, `REGION_REPLICATION`, user metadata), returned as set.
    pub metadata: SchemaMetadata,
}

impl TableDescriptor {
    /// A descriptor with `families` and nothing else set.
    pub fn new(name: TableName, families: Vec<FamilyOptions>) -> TableDescriptor {
        TableDescriptor {
            name,
            families,
            durability: WriteDurability::UseDefault,
            metadata: SchemaMetadata::default(),
        }
    }
}

impl TableState {
    /// The table's state: its catalog record and its regions (sorted by start key).
    pub fn new(name: TableName, record: TableRecord, regions: Vec<OpenRegion>) -> TableState {
        let encoded = crate::catalog::encode_table(&record);
        let crc = strata_engine::util::crc::crc32c(&encoded);
        TableState {
            name,
            record,
            regions,
            schema: (u64::from(crc) << 32) | (encoded.len() as u64 & 0xffff_ffff),
        }
    }

    /// A digest of the table's catalog record: two servers with the same digest see the
    /// same families, state and regions (see [`PeerTable`]).
    pub fn schema(&self) -> u64 {
        self.schema
    }

    /// The table as a request forwarded to a peer names it.
    pub fn peer_table(&self) -> PeerTable {
        PeerTable {
            name: self.name.clone(),
            schema: self.schema(),
        }
    }

    /// The region holding `row`.
    pub fn region_for(&self, row: &[u8]) -> &OpenRegion {
        &self.regions[self.region_index_for(row)]
    }

    /// The index in `regions` of the region holding `row`.
    pub fn region_index_for(&self, row: &[u8]) -> usize {
        // The first region starts at the empty key, so the index is at least 1.
        let idx = self
            .regions
            .partition_point(|r| r.entry.start_key.as_ref() <= row);
        idx.saturating_sub(1)
            .min(self.regions.len().saturating_sub(1))
    }

    /// The durability a write to this table gets when it asks for `requested` (every write
    /// path resolves it here: see `durability.rs` for HBase's rule).
    pub fn durability_for(&self, requested: WriteDurability) -> Durability {
        requested.resolve(self.record.durability)
    }

    /// Fails unless the table is enabled.
    pub fn check_enabled(&self) -> Result<()> {
        if self.record.enabled {
            Ok(())
        } else {
            Err(ServiceError::TableDisabled(self.name.to_string()))
        }
    }

    /// Fails unless `family` exists.
    pub fn check_family(&self, family: &[u8]) -> Result<()> {
        if self.record.families.iter().any(|f| f.name == family) {
            Ok(())
        } else {
            Err(ServiceError::FamilyNotFound {
                table: self.name.to_string(),
                family: String::from_utf8_lossy(family).into_owned(),
            })
        }
    }

    /// The regions as adapters report them.
    pub fn region_infos(&self) -> Vec<RegionInfo> {
        self.regions
            .iter()
            .map(|r| RegionInfo {
                id: r.entry.id,
                start_key: r.entry.start_key.clone(),
                end_key: r.entry.end_key.clone(),
                name: region_name(&self.name, &r.entry.start_key, r.entry.id),
                served_by: match &r.location {
                    RegionLocation::Here(_) => ServedBy::ThisServer,
                    RegionLocation::Peer(peer) => {
                        peer.served_at().map_or(ServedBy::Nobody, ServedBy::Peer)
                    }
                },
            })
            .collect()
    }
}

/// HBase's region name: `table,start_key,id.ENCODED.` where ENCODED is 32 hex digits
/// derived from the rest (HBase uses an MD5; clients only parse the shape). Clients look a
/// region up by ENCODED alone, and every server of a cluster names every region, so the
/// digits must be the same from any build on any platform: XXH3-128 (a specified hash,
/// 128 bits so that names of distinct regions never meet in practice) of the name's
/// bytes before the dot, the start key as its raw bytes (`docs/shell.md`, "Tools").
pub fn region_name(table: &TableName, start_key: &[u8], id: u64) -> String {
    let table = table.to_string();
    let id = id.to_string();
    let mut hashed = Vec::with_capacity(table.len() + start_key.len() + id.len() + 2);
    for part in [table.as_bytes(), b",", start_key, b",", id.as_bytes()] {
        hashed.extend_from_slice(part);
    }
    let encoded = twox_hash::XxHash3_128::oneshot(&hashed);
    format!(
        "{table},{},{id}.{encoded:032x}.",
        String::from_utf8_lossy(start_key)
    )
}

/// Region key ranges for a table pre-split at `split_keys`: `["", k1), [k1, k2), …, [kn, "")`.
pub fn region_ranges(split_keys: &[Bytes]) -> Result<Vec<(Bytes, Bytes)>> {
    let mut keys: Vec<Bytes> = split_keys.to_vec();
    keys.sort();
    keys.dedup();
    if keys.len() != split_keys.len() || keys.iter().any(|k| k.is_empty()) {
        return Err(ServiceError::InvalidArgument(
            "split keys must be non-empty and distinct".into(),
        ));
    }
    let mut bounds = vec![Bytes::new()];
    bounds.extend(keys);
    let ends = bounds
        .iter()
        .skip(1)
        .cloned()
        .chain(std::iter::once(Bytes::new()));
    Ok(bounds.iter().cloned().zip(ends).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names clients hold must not change with the build: these digits are XXH3-128's
    /// (checked against another implementation of it), not this build's.
    #[test]
    fn region_names_are_pinned() {
        let table = TableName::parse("t").unwrap();
        assert_eq!(
            region_name(&table, b"row-m", 42),
            "t,row-m,42.d2bdf0a29d552320118a50ce0e7e15d8."
        );
        let table = TableName::parse("ns:t").unwrap();
        assert_eq!(
            region_name(&table, b"", 1),
            "ns:t,,1.9018e7b0466c46a6d2ac45fbbb5aac3a."
        );
        // The raw key is hashed: keys that print alike still name regions apart.
        let ff = region_name(&table, b"\xff", 9);
        assert_eq!(ff, "ns:t,\u{fffd},9.3318a55dba37997709a14b8ef42bfd12.");
        let fe = region_name(&table, b"\xfe", 9);
        assert_eq!(fe, "ns:t,\u{fffd},9.b5d36a8f0ae1f8884d59e433f35ddf8c.");
    }

    #[test]
    fn split_keys_make_contiguous_ranges() {
        let r = region_ranges(&[Bytes::from_static(b"m"), Bytes::from_static(b"c")]).unwrap();
        let as_str: Vec<(&[u8], &[u8])> = r.iter().map(|(a, b)| (a.as_ref(), b.as_ref())).collect();
        assert_eq!(
            as_str,
            vec![(&b""[..], &b"c"[..]), (b"c", b"m"), (b"m", b"")]
        );
        assert_eq!(region_ranges(&[]).unwrap().len(), 1);
        assert!(region_ranges(&[Bytes::new()]).is_err());
        assert!(region_ranges(&[Bytes::from_static(b"a"), Bytes::from_static(b"a")]).is_err());
    }
}
