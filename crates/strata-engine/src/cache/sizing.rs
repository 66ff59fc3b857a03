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
//! offers, so the split follows the files as they open and close instead.)
//!
//! The split moves in steps of 1/[`RESIZE_STEPS`] of the capacity: a reservation grows as
//! soon as the demand needs it, and shrinks only once the demand is two steps below it, so
//! a flush or compaction (which opens files and closes others a little later) seldom
//! resizes anything. Resizing is not free: quick_cache scales each shard's memory of
//! recently evicted keys (what makes it scan resistant) with the capacity, rounding down,
//! and loses it entirely at capacity 0, so the high partition is emptied and bypassed
//! rather than sized to 0 when its last IN_MEMORY file closes.

use std::sync::Arc;

use super::BlockCache;

/// Most of the data capacity the high-priority partition may take.
pub const HIGH_PRIORITY_PERCENT: u64 = 25;

/// Data blocks always keep at least this share of the configured capacity.
pub const MIN_DATA_PERCENT: u64 = 10;

/// The partitions are resized in steps of this fraction of the capacity.
pub const RESIZE_STEPS: u64 = 64;

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

/// What the partitions are sized from: the demand rounded up to whole steps, following it
/// with hysteresis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reserve {
    /// Kept for index and bloom memory (at least the demand's).
    pub index_bloom: u64,
    /// Wanted by the high partition (before its cap).
    pub high: u64,
}

/// Capacities of the two partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Split {
    pub high: u64,
    pub normal: u64,
}

fn step(capacity: u64) -> u64 {
    (capacity / RESIZE_STEPS).max(1)
}

/// `bytes` rounded up to whole steps.
fn whole_steps(bytes: u64, step: u64) -> u64 {
    bytes.div_ceil(step).saturating_mul(step)
}

/// Up at once, down only by two steps or more.
fn follow(current: u64, wanted: u64, step: u64) -> u64 {
    if wanted > current || wanted.saturating_add(2 * step) <= current {
        wanted
    } else {
        current
    }
}

impl Reserve {
    /// The reservation for `demand`, starting from this one; `high_shards` is the high
    /// partition's shard count.
    pub fn follow(self, capacity: u64, demand: Demand, high_shards: u64) -> Reserve {
        let step = step(capacity);
        let high = match demand.in_memory {
            0 => 0, // no IN_MEMORY file open: the partition closes at once
            raw => {
                let wanted = raw
                    .saturating_add(raw / 4)
                    .saturating_add(high_shards.saturating_mul(SHARD_SLACK));
                follow(self.high, whole_steps(wanted, step), step)
            }
        };
        Reserve {
            index_bloom: follow(
                self.index_bloom,
                whole_steps(demand.index_bloom, step),
                step,
            ),
            high,
        }
    }

    /// Divides `capacity`: data blocks get what the index and bloom reservation leaves (at
    /// least their floor), the high partition what it wants of that up to its share.
    pub fn split(self, capacity: u64) -> Split {
        let floor = capacity / 100 * MIN_DATA_PERCENT;
        let data = capacity.saturating_sub(self.index_bloom).max(floor);
        let high = self.high.min(data / 100 * HIGH_PRIORITY_PERCENT);
        Split {
            high,
            normal: data - high,
        }
    }
}

/// True when data blocks are held at their floor: index and bloom memory took the rest.
pub fn at_floor(capacity: u64, demand: Demand) -> bool {
    capacity > 0 && demand.index_bloom > capacity - capacity / 100 * MIN_DATA_PERCENT
}

/// What one open table file holds against the cache; released when dropped (the file's
/// reader closed).
pub struct CacheCharge {
    cache: Arc<BlockCache>,
    demand: Demand,
    /// The file registered with the second level (`BlockCache::open_file`).
    file_id: Option<u64>,
}

impl CacheCharge {
    pub(super) fn new(cache: Arc<BlockCache>, demand: Demand) -> CacheCharge {
        CacheCharge {
            cache,
            demand,
            file_id: None,
        }
    }

    /// The charge also unregisters `file_id` when dropped.
    pub(super) fn for_file(mut self, file_id: u64) -> CacheCharge {
        self.file_id = Some(file_id);
        self
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
        if let Some(file_id) = self.file_id {
            self.cache.forget_file(file_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;
    const CAPACITY: u64 = 64 * MIB; // steps of 1 MiB

    fn demand(index_bloom: u64, in_memory: u64) -> Demand {
        Demand {
            index_bloom,
            in_memory,
        }
    }

    #[test]
    fn without_in_memory_files_everything_is_normal() {
        let split = Reserve::default()
            .follow(CAPACITY, Demand::default(), 8)
            .split(CAPACITY);
        assert_eq!(
            split,
            Split {
                high: 0,
                normal: CAPACITY
            }
        );
    }

    #[test]
    fn index_and_bloom_memory_comes_off_the_data_capacity_in_whole_steps() {
        let reserve = Reserve::default().follow(CAPACITY, demand(MIB * 5 / 2, 0), 8);
        assert_eq!(
            reserve.index_bloom,
            3 * MIB,
            "rounded up: never less than the demand"
        );
        assert_eq!(reserve.split(CAPACITY).normal, CAPACITY - 3 * MIB);
        assert!(!at_floor(CAPACITY, demand(MIB * 5 / 2, 0)));
        let huge = demand(CAPACITY - MIB, 0);
        let floor = CAPACITY / 100 * MIN_DATA_PERCENT;
        let split = Reserve::default().follow(CAPACITY, huge, 8).split(CAPACITY);
        assert_eq!(split.normal, floor);
        assert!(at_floor(CAPACITY, huge));
    }

    #[test]
    fn reservations_grow_at_once_and_shrink_only_by_two_steps() {
        let at =
            |reserve: Reserve, index_bloom| reserve.follow(CAPACITY, demand(index_bloom, 0), 8);
        let r = at(Reserve::default(), 10 * MIB);
        assert_eq!(r.index_bloom, 10 * MIB);
        assert_eq!(at(r, 10 * MIB + 1).index_bloom, 11 * MIB, "grows at once");
        let r = at(r, 10 * MIB + 1);
        assert_eq!(at(r, 10 * MIB).index_bloom, 11 * MIB, "a step below: kept");
        assert_eq!(
            at(r, 9 * MIB + 1).index_bloom,
            11 * MIB,
            "still under two: kept"
        );
        assert_eq!(
            at(r, 9 * MIB).index_bloom,
            9 * MIB,
            "two steps below: shrinks"
        );
        assert_eq!(at(r, 0).index_bloom, 0);
    }

    #[test]
    fn the_high_partition_fits_the_in_memory_files_up_to_its_share() {
        let reserve = Reserve::default().follow(CAPACITY, demand(0, 4 * MIB), 8);
        let wanted = 5 * MIB + 8 * SHARD_SLACK; // 5.5 MiB: 6 steps
        assert_eq!(reserve.high, whole_steps(wanted, MIB));
        let split = reserve.split(CAPACITY);
        assert_eq!(split.high, 6 * MIB);
        assert_eq!(split.high + split.normal, CAPACITY);
        let closed = reserve.follow(CAPACITY, demand(0, 0), 8);
        assert_eq!(closed.high, 0, "the last IN_MEMORY file closed");
        let large = Reserve::default().follow(CAPACITY, demand(16 * MIB, 500 * MIB), 8);
        let split = large.split(CAPACITY);
        assert_eq!(split.high, 48 * MIB / 100 * HIGH_PRIORITY_PERCENT);
        assert_eq!(split.high + split.normal, 48 * MIB);
    }

    #[test]
    fn a_disabled_cache_has_no_partitions() {
        let split = Reserve::default().follow(0, demand(MIB, MIB), 1).split(0);
        assert_eq!(split, Split::default());
        assert!(!at_floor(0, demand(MIB, MIB)));
    }
}
