//! How a table is written and how its blocks are cached.

use crate::options::{BloomType, Compression, DataBlockEncoding, FamilyOptions};

/// Bloom bits per key when the family does not say otherwise (~0.8% false positives).
pub const DEFAULT_BLOOM_BITS_PER_KEY: u32 = 10;

/// Settings a [`super::TableBuilder`] writes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableOptions {
    /// A data block is cut once its raw size reaches this many bytes.
    pub block_size: usize,
    /// Codec for data and index blocks.
    pub compression: Compression,
    /// Key encoding inside data blocks.
    pub encoding: DataBlockEncoding,
    /// What the bloom filter holds.
    pub bloom_type: BloomType,
    /// Bloom filter size per distinct key.
    pub bloom_bits_per_key: u32,
}

impl TableOptions {
    /// The table settings of a column family.
    pub fn from_family(family: &FamilyOptions) -> Self {
        TableOptions {
            block_size: family.block_size,
            compression: family.compression,
            encoding: family.data_block_encoding,
            bloom_type: family.bloom_type,
            bloom_bits_per_key: DEFAULT_BLOOM_BITS_PER_KEY,
        }
    }
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions::from_family(&FamilyOptions::new("default"))
    }
}

/// How a reader uses the block cache for data blocks (index and bloom blocks stay in the
/// reader while the file is open, their memory charged to the cache).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePolicy {
    /// Cache data blocks at all (HBase's BLOCKCACHE family attribute).
    pub cache_data_blocks: bool,
    /// Cache data blocks at high priority (HBase's IN_MEMORY family attribute).
    pub in_memory: bool,
}

impl CachePolicy {
    /// The cache policy of a column family.
    pub fn from_family(family: &FamilyOptions) -> Self {
        CachePolicy {
            cache_data_blocks: family.block_cache_enabled,
            in_memory: family.in_memory,
        }
    }
}

impl Default for CachePolicy {
    fn default() -> Self {
        CachePolicy {
            cache_data_blocks: true,
            in_memory: false,
        }
    }
}
