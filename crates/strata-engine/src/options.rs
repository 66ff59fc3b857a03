//! Per-family settings (HBase's ColumnFamilyDescriptor) and engine-wide settings.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;

use crate::fs::StoragePolicy;

// Minor compaction tuning is set through `EngineOptions::compaction`; the policy that reads
// it stays private.
pub use crate::compaction::policy::CompactionConfig;

/// Block compression codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    #[default]
    None,
    Lz4,
    Zstd,
    Snappy,
    /// DEFLATE in gzip framing (HBase's GZ).
    Gz,
}

/// Data block key encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DataBlockEncoding {
    /// Every key stored in full (a restart point at every entry).
    None,
    /// Keys share prefixes with their predecessor between restart points.
    #[default]
    Prefix,
}

/// Which keys a file's bloom filter holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BloomType {
    None,
    /// One entry per row.
    #[default]
    Row,
    /// One entry per (row, qualifier).
    RowCol,
}

/// HBase's KEEP_DELETED_CELLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KeepDeletedCells {
    /// Deleted cells and markers are dropped by major compaction.
    #[default]
    False,
    /// Deleted cells are kept; time-range reads before a delete still see them.
    True,
    /// Like True, but TTL still expires deleted cells and markers.
    Ttl,
}

/// Descriptor values and configuration a client set on a table or family that the server
/// keeps without acting on them (HBase's `TableDescriptor`/`ColumnFamilyDescriptor` carry
/// arbitrary ones: `SPLIT_POLICY`, `REGION_REPLICATION`, user metadata). They are stored so
/// that describing the table returns exactly the bytes that were set. The engine never
/// reads them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaMetadata {
    /// Descriptor values, bytes to bytes.
    pub attributes: BTreeMap<Bytes, Bytes>,
    /// Configuration overrides, string to string.
    pub configuration: BTreeMap<String, String>,
}

impl SchemaMetadata {
    /// True when there is neither an attribute nor a configuration entry.
    pub fn is_empty(&self) -> bool {
        self.attributes.is_empty() && self.configuration.is_empty()
    }
}

/// A column family's settings. Defaults are HBase's native (Java API) defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyOptions {
    pub name: Vec<u8>,
    pub max_versions: u32,
    pub min_versions: u32,
    /// Time to live in seconds; `None` is forever (HBase's Integer.MAX_VALUE).
    pub ttl_seconds: Option<u64>,
    pub keep_deleted_cells: KeepDeletedCells,
    pub block_size: usize,
    pub compression: Compression,
    pub data_block_encoding: DataBlockEncoding,
    pub bloom_type: BloomType,
    pub block_cache_enabled: bool,
    pub in_memory: bool,
    /// Point reads of this family are answered from the process's row cache when they
    /// were asked before and nothing changed the row since (Hypertable's query cache;
    /// `ROW_CACHE` in the shell). Needs `EngineOptions::row_cache_bytes` > 0. A Get is
    /// cached only when every family it reads has it. Off by default.
    pub row_cache: bool,
    /// The garbage-collection rule exactly as a Cloud Bigtable client last gave it (an
    /// encoded `google.bigtable.admin.v2.GcRule`), so that GetTable can return it in the
    /// client's own shape and member order. The engine never reads it: `max_versions`,
    /// `min_versions` and `ttl_seconds` are what collect cells. The gRPC layer uses it only
    /// while it still stands for those three settings.
    pub bigtable_gc_rule: Option<Bytes>,
    /// Where this family's flushed and compacted files go (HBase's `STORAGE_POLICY`);
    /// `None` follows the server's `storage_policy`.
    pub storage_policy: Option<StoragePolicy>,
    /// The family's values and configuration the server does not interpret.
    pub metadata: SchemaMetadata,
}

impl FamilyOptions {
    /// A family with HBase's default settings.
    pub fn new(name: impl Into<Vec<u8>>) -> Self {
        FamilyOptions {
            name: name.into(),
            max_versions: 1,
            min_versions: 0,
            ttl_seconds: None,
            keep_deleted_cells: KeepDeletedCells::False,
            block_size: 64 * 1024,
            compression: Compression::None,
            data_block_encoding: DataBlockEncoding::Prefix,
            bloom_type: BloomType::Row,
            block_cache_enabled: true,
            in_memory: false,
            row_cache: false,
            bigtable_gc_rule: None,
            storage_policy: None,
            metadata: SchemaMetadata::default(),
        }
    }

    /// TTL in milliseconds, if any.
    pub fn ttl_millis(&self) -> Option<i64> {
        self.ttl_seconds
            .map(|s| i64::try_from(s.saturating_mul(1000)).unwrap_or(i64::MAX))
    }
}

/// How durable a write must be before it is acknowledged (HBase's Durability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Durability {
    /// Not written to the WAL at all; lost on a crash before flush. A write touching several
    /// families can also be partly kept: a crash between two stores' flush commits keeps the
    /// families already flushed.
    SkipWal,
    /// Appended to the WAL; a background task flushes it at an interval.
    AsyncWal,
    /// Handed to the OS before the acknowledgement (survives a process crash).
    #[default]
    SyncWal,
    /// fsynced before the acknowledgement (survives a power loss).
    FsyncWal,
}

/// WAL settings.
#[derive(Debug, Clone)]
pub struct WalOptions {
    /// A segment is rolled once it is larger than this.
    pub segment_size: u64,
    /// How often ASYNC_WAL edits are flushed to the OS.
    pub async_flush_interval: Duration,
    /// Every logged write is made at least this durable (a server-wide `durability`
    /// setting: `FsyncWal` fsyncs even writes that asked for `SyncWal`). `SkipWal` writes
    /// stay unlogged.
    pub min_durability: Durability,
    /// How many WALs the local WAL is split into (HBase's `multiwal`): each region logs to
    /// one group, each group has its own segments, group commit and syncs, so a slow
    /// device holding one group does not hold up the writes of the others. Local segments
    /// only: a WAL backend (cluster mode's object stream) is one log.
    pub groups: WalGroupCount,
}

/// The number of WAL groups ([`WalOptions::groups`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalGroupCount {
    /// This many groups (1, the default, is a single WAL), spread over the volumes of the
    /// WAL's storage type in turn. From 1 to [`WalGroupCount::MAX`].
    Fixed(usize),
    /// One group per volume of the WAL's storage type.
    PerVolume,
}

impl WalGroupCount {
    /// The most groups a server may have: each one is a flusher thread, an open segment
    /// and a directory per volume, and more groups than devices buy little.
    pub const MAX: usize = 64;
}

impl Default for WalGroupCount {
    /// One WAL for every region, as before groups existed.
    fn default() -> Self {
        WalGroupCount::Fixed(1)
    }
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions {
            segment_size: 64 * 1024 * 1024,
            async_flush_interval: Duration::from_millis(100),
            min_durability: Durability::AsyncWal,
            groups: WalGroupCount::default(),
        }
    }
}
