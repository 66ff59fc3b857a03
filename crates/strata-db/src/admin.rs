//! Table definitions: [`TableBuilder`] for `create_table`, [`Family`] for column families.

use std::time::Duration;

use bytes::Bytes;
use strata_engine::{BloomType, Compression, FamilyOptions};
use strata_server::WriteDurability;

/// A column family's settings, starting from HBase's defaults (1 version, no TTL, no
/// compression, row bloom filter, 64 KiB blocks).
///
/// ```
/// use std::time::Duration;
/// use strata_db::{BloomType, Compression, Family};
/// let family = Family::new("cf")
///     .versions(3)
///     .ttl(Duration::from_secs(86_400))
///     .compression(Compression::Zstd)
///     .bloom(BloomType::RowCol);
/// assert_eq!(family.options().max_versions, 3);
/// ```
#[derive(Debug, Clone)]
pub struct Family(FamilyOptions);

impl Family {
    /// A family named `name` with default settings.
    pub fn new(name: impl Into<Vec<u8>>) -> Self {
        Family(FamilyOptions::new(name))
    }

    /// Versions kept per column.
    pub fn versions(mut self, max: u32) -> Self {
        self.0.max_versions = max;
        self
    }

    /// Versions kept even when older than the TTL.
    pub fn min_versions(mut self, min: u32) -> Self {
        self.0.min_versions = min;
        self
    }

    /// Cells older than this expire (whole seconds).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.0.ttl_seconds = Some(ttl.as_secs());
        self
    }

    /// Block compression codec.
    pub fn compression(mut self, compression: Compression) -> Self {
        self.0.compression = compression;
        self
    }

    /// Which keys the files' bloom filters hold.
    pub fn bloom(mut self, bloom: BloomType) -> Self {
        self.0.bloom_type = bloom;
        self
    }

    /// Data block size in bytes.
    pub fn block_size(mut self, bytes: usize) -> Self {
        self.0.block_size = bytes;
        self
    }

    /// Gives the family's blocks priority in the block cache.
    pub fn in_memory(mut self, in_memory: bool) -> Self {
        self.0.in_memory = in_memory;
        self
    }

    /// Answers the family's repeated point reads from the row cache (see
    /// `Options::row_cache_bytes`, which must be above 0 for it to do anything).
    pub fn row_cache(mut self, row_cache: bool) -> Self {
        self.0.row_cache = row_cache;
        self
    }

    /// The settings as the service takes them.
    pub fn options(&self) -> &FamilyOptions {
        &self.0
    }
}

impl From<Family> for FamilyOptions {
    fn from(f: Family) -> Self {
        f.0
    }
}

impl From<FamilyOptions> for Family {
    fn from(f: FamilyOptions) -> Self {
        Family(f)
    }
}

impl From<&str> for Family {
    fn from(name: &str) -> Self {
        Family::new(name)
    }
}

/// A table to create: its name (`table` or `namespace:table`), families, split keys and
/// DURABILITY.
///
/// ```
/// use strata_db::{Durability, Family, TableBuilder};
/// let table = TableBuilder::new("metrics:cpu")
///     .family(Family::new("d").versions(1))
///     .split_keys(["\x01", "\x02", "\x03"])
///     .durability(Durability::AsyncWal);
/// # let _ = table;
/// ```
#[derive(Debug, Clone)]
pub struct TableBuilder {
    pub(crate) name: String,
    pub(crate) families: Vec<FamilyOptions>,
    pub(crate) split_keys: Vec<Bytes>,
    pub(crate) durability: WriteDurability,
}

impl TableBuilder {
    /// A table named `name`; families are added with [`TableBuilder::family`] (a table may
    /// also start with none and get them later through `alter`).
    pub fn new(name: impl Into<String>) -> Self {
        TableBuilder {
            name: name.into(),
            families: Vec::new(),
            split_keys: Vec::new(),
            durability: WriteDurability::UseDefault,
        }
    }

    /// Adds a column family.
    pub fn family(mut self, family: impl Into<Family>) -> Self {
        self.families.push(family.into().0);
        self
    }

    /// Pre-splits the table into regions starting at these row keys.
    pub fn split_keys<K: Into<Bytes>>(mut self, keys: impl IntoIterator<Item = K>) -> Self {
        self.split_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// The table's DURABILITY (HBase's table attribute): what its writes get unless they
    /// choose their own (a write's or a handle's durability overrides it). Unset, writes
    /// get the database's default ([`Options::durability`](crate::Options::durability)).
    pub fn durability(mut self, durability: impl Into<WriteDurability>) -> Self {
        self.durability = durability.into();
        self
    }
}
