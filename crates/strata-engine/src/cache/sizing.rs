//! How the block cache's configured capacity is divided, and what open table files charge
//! against it.
//!
//! Every open table file keeps its decoded index and its bloom filter in memory, outside the
//! cache's partitions (every point read needs both; see `table/reader.rs`). That memory is
//! charged to the block cache: data blocks get the configured capacity minus it, so the
//! cache and the index and bloom memory together stay within `block_cache_bytes`. Only when
//! the open files' index and bloom memory leaves data blocks less than
//! [`MIN_DATA_PERCENT`] of the capacity do data blocks keep that floor, and the total goes
//! over (with a warning in the log, and the figures in the metrics).
//!
//! The high-priority partition holds the data blocks of IN_MEMORY families only, so it is
//! sized from the IN_MEMORY files actually open: room for all their blocks (their raw key
//! and value bytes, plus slack for block overhead and uneven sharding), but never more than
//! [`HIGH_PRIORITY_PERCENT`] of the data capacity (HBase's in-memory share), and 0 when no
//! IN_MEMORY file is open. Whatever it does not take belongs to the normal partition.
//! (quick_cache partitions have fixed capacities, changed with `set_capacity`; a shared
//! capacity that each priority borrows from the other as it fills is not something it
//! offers, so the split is recomputed whenever a file opens or closes instead.)

use std::sync::Arc;

use super::BlockCache;

/// Most of the data capacity the high-priority partition may take.
pub const HIGH_PRIORITY_PERCENT: u64 = 25;

/// Data blocks always keep at least this share of the configured capacity.
pub const MIN_DATA_PERCENT: u64 = 10;

/// Room kept per shard of the high-priority partition beyond the IN_MEMORY files' raw
/// bytes: one large block, so a shard can hold a block however the keys hash.
const SHARD_SLACK: u64 = 64 * 1024;

/// What the open files hold or may want, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Demand {
    /// Index and bloom memory of open files.
    pub index_bloom: u64,
    /// Raw key and value bytes of open IN_MEMORY files whose blocks are cached.
    pub in_memory: u64,
}

/// Capacities of the two partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Split {
    pub high: u64,
    pub normal: u64,
}

impl Split {
    /// Divides `capacity` for `demand`; `high_shards` is the high partition's shard count.
    pub fn of(capacity: u64, demand: Demand, high_shards: u64) -> Split {
        let floor = capacity / 100 * MIN_DATA_PERCENT;
        let data = capacity.saturating_sub(demand.index_bloom).max(floor);
        let wanted = match demand.in_memory {
            0 => 0,
            raw => raw
                .saturating_add(raw / 4)
                .saturating_add(high_shards.saturating_mul(SHARD_SLACK)),
        };
        let high = wanted.min(data / 100 * HIGH_PRIORITY_PERCENT);
        Split {
            high,
            normal: data - high,
        }
    }

    /// True when data blocks are held at the floor: index and bloom memory took the rest.
    pub fn at_floor(capacity: u64, demand: Demand) -> bool {
        capacity > 0 && demand.index_bloom > capacity - capacity / 100 * MIN_DATA_PERCENT
    }
}

/// What one open table file holds against the cache; released when dropped (the file's
/// reader closed).
pub struct CacheCharge {
    cache: Arc<BlockCache>,
    demand: Demand,
}

impl CacheCharge {
    pub(super) fn new(cache: Arc<BlockCache>, demand: Demand) -> CacheCharge {
        CacheCharge { cache, demand }
    }
}

impl std::fmt::Debug for CacheCharge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CacheCharge")
            .field("demand", &self.demand)
            .finish()
    }
}

impl Drop for CacheCharge {
    fn drop(&mut self) {
        self.cache.release(self.demand);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn without_in_memory_files_everything_is_normal() {
        let split = Split::of(100 * MIB, Demand::default(), 8);
        assert_eq!(
            split,
            Split {
                high: 0,
                normal: 100 * MIB
            }
        );
    }

    #[test]
    fn index_and_bloom_memory_comes_off_the_data_capacity() {
        let demand = Demand {
            index_bloom: 30 * MIB,
            in_memory: 0,
        };
        assert_eq!(Split::of(100 * MIB, demand, 8).normal, 70 * MIB);
        assert!(!Split::at_floor(100 * MIB, demand));
        let huge = Demand {
            index_bloom: 95 * MIB,
            in_memory: 0,
        };
        let floor = 100 * MIB / 100 * MIN_DATA_PERCENT;
        assert_eq!(Split::of(100 * MIB, huge, 8).normal, floor);
        assert!(Split::at_floor(100 * MIB, huge));
    }

    #[test]
    fn the_high_partition_fits_the_in_memory_files_up_to_its_share() {
        let small = Demand {
            index_bloom: 0,
            in_memory: 4 * MIB,
        };
        let split = Split::of(100 * MIB, small, 8);
        assert_eq!(split.high, 5 * MIB + 8 * SHARD_SLACK);
        assert_eq!(split.high + split.normal, 100 * MIB);
        let large = Demand {
            index_bloom: 20 * MIB,
            in_memory: 500 * MIB,
        };
        let split = Split::of(100 * MIB, large, 8);
        assert_eq!(split.high, 80 * MIB / 100 * HIGH_PRIORITY_PERCENT);
        assert_eq!(split.high + split.normal, 80 * MIB);
    }

    #[test]
    fn a_disabled_cache_has_no_partitions() {
        let demand = Demand {
            index_bloom: MIB,
            in_memory: MIB,
        };
        assert_eq!(Split::of(0, demand, 1), Split::default());
        assert!(!Split::at_floor(0, demand));
    }
}
