//! Block cache tests: counters, partitions, and the charges of open files.

use super::block_cache::ENTRY_OVERHEAD;
use super::*;
use crate::table::block::Block;

/// A structurally valid block of exactly `n` bytes (n a multiple of 4, at least 4): no
/// entries, and restart slots filling the space.
fn block(n: usize) -> Block {
    let slots = (n - 4) / 4;
    let mut data = vec![0u8; n];
    data[n - 4..].copy_from_slice(&(slots as u32).to_le_bytes());
    let path: std::sync::Arc<std::path::Path> = std::sync::Arc::from(std::path::Path::new("t"));
    Block::new(bytes::Bytes::from(data), path, 0).unwrap()
}

#[test]
fn hits_misses_and_inserts_are_counted() {
    let cache = BlockCache::new(1 << 20);
    assert_eq!(cache.get(&(1, 0)).map(Block::into_bytes), None);
    cache.insert((1, 0), block(100), Priority::Normal);
    cache.insert((1, 200), block(50), Priority::High);
    assert_eq!(
        cache.get(&(1, 0)).map(Block::into_bytes),
        Some(block(100).into_bytes())
    );
    assert_eq!(
        cache.get(&(1, 200)).map(Block::into_bytes),
        Some(block(50).into_bytes())
    );
    assert_eq!(
        cache.get(&(2, 0)).map(Block::into_bytes),
        None,
        "another file's block"
    );
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.inserts, s.entries), (2, 2, 2, 2));
    assert_eq!(s.size_bytes, 150 + 2 * ENTRY_OVERHEAD);
    assert_eq!(s.capacity_bytes, 1 << 20);
    assert_eq!(s.evictions, 0);
}

#[test]
fn priority_blocks_survive_a_flood_and_evictions_are_counted() {
    let cache = BlockCache::new(400 * 1024);
    let _in_memory_file = cache.charge(0, 20 * 2048);
    for i in 0..20 {
        cache.insert((1, i), block(2048), Priority::High);
    }
    for i in 0..2000 {
        cache.insert((2, i), block(4096), Priority::Normal);
    }
    for i in 0..20 {
        assert!(
            cache.get(&(1, i)).map(Block::into_bytes).is_some(),
            "high-priority block {i} evicted"
        );
    }
    let s = cache.stats();
    assert!(s.size_bytes <= s.capacity_bytes, "{s:?}");
    assert!(s.evictions >= 1900, "{s:?}");
    assert_eq!(s.evictions + s.entries, s.inserts, "{s:?}");
}

#[test]
fn disabled_cache_holds_nothing() {
    let cache = BlockCache::disabled();
    cache.insert((1, 0), block(10), Priority::High);
    assert!(cache.is_empty());
    assert_eq!(cache.get(&(1, 0)).map(Block::into_bytes), None);
    assert_eq!(cache.stats().misses, 1);
}

#[test]
fn file_ids_are_unique() {
    let a = BlockCache::next_file_id();
    let b = BlockCache::next_file_id();
    assert_ne!(a, b);
}

/// A partition's capacity is `expected` less up to one resize step of a cache of `total`
/// (charges are reserved in whole steps), rounded down to a multiple of its shard count.
fn assert_near(capacity: u64, expected: u64, total: u64) {
    let slack = total / RESIZE_STEPS + 1024;
    assert!(
        (expected.saturating_sub(slack)..=expected).contains(&capacity),
        "capacity {capacity}, expected {expected}"
    );
}

#[test]
fn index_and_bloom_memory_shrinks_the_data_capacity_until_released() {
    let cache = BlockCache::new(1 << 20);
    for i in 0..400 {
        cache.insert((1, i), block(4096), Priority::Normal);
    }
    let full = cache.stats();
    assert!(full.size_bytes > 900 * 1024, "{full:?}");
    let charge = cache.charge(600 * 1024, 0);
    let s = cache.stats();
    assert_eq!(s.index_bloom_bytes, 600 * 1024);
    assert!(
        s.size_bytes + s.index_bloom_bytes <= s.capacity_bytes,
        "blocks were evicted to make room: {s:?}"
    );
    assert_near(
        cache.tier_stats()[1].capacity_bytes,
        (1 << 20) - 600 * 1024,
        1 << 20,
    );
    drop(charge);
    assert_eq!(cache.stats().index_bloom_bytes, 0);
    assert_near(cache.tier_stats()[1].capacity_bytes, 1 << 20, 1 << 20);
}

#[test]
fn data_blocks_keep_their_floor_when_index_and_bloom_take_everything() {
    let cache = BlockCache::new(1 << 20);
    let _charge = cache.charge(2 << 20, 0);
    let normal = cache.tier_stats()[1].capacity_bytes;
    assert!(normal >= (1 << 20) / 100 * MIN_DATA_PERCENT, "{normal}");
    cache.insert((1, 0), block(4096), Priority::Normal);
    assert!(
        cache.get(&(1, 0)).is_some(),
        "the floor still caches blocks"
    );
}

#[test]
fn the_high_partition_exists_only_for_open_in_memory_files() {
    let cache = BlockCache::new(4 << 20);
    assert_eq!(cache.tier_stats()[0].capacity_bytes, 0);
    assert_near(cache.tier_stats()[1].capacity_bytes, 4 << 20, 4 << 20);
    // No IN_MEMORY file is open: a high-priority block goes to the normal partition.
    cache.insert((1, 0), block(1024), Priority::High);
    assert_eq!(cache.tier_stats()[1].entries, 1);
    let in_memory_file = cache.charge(1000, 64 * 1024);
    let [high, normal] = [0, 1].map(|i| cache.tier_stats()[i].capacity_bytes);
    assert!(
        (64 * 1024..=(4 << 20) / 100 * HIGH_PRIORITY_PERCENT).contains(&high),
        "{high}"
    );
    assert_near(high + normal, (4 << 20) - 1000, 4 << 20);
    cache.insert((2, 0), block(1024), Priority::High);
    assert_eq!(cache.tier_stats()[0].entries, 1);
    assert!(cache.get(&(2, 0)).is_some());
    assert_eq!(cache.tier_stats()[0].hits, 1);
    drop(in_memory_file);
    assert_eq!(cache.tier_stats()[0].capacity_bytes, 0);
    assert_eq!(cache.tier_stats()[0].entries, 0, "closed and emptied");
    assert!(cache.get(&(2, 0)).is_none());
    assert_near(cache.tier_stats()[1].capacity_bytes, 4 << 20, 4 << 20);
    // Another IN_MEMORY file opens it again.
    let _again = cache.charge(0, 64 * 1024);
    assert!(cache.tier_stats()[0].capacity_bytes >= 64 * 1024);
    cache.insert((3, 0), block(1024), Priority::High);
    assert_eq!(cache.tier_stats()[0].entries, 1);
}

#[test]
fn small_changes_of_the_charges_do_not_resize() {
    let cache = BlockCache::new(64 << 20); // steps of 1 MiB
    let base = cache.charge(10 << 20, 0);
    let normal = cache.tier_stats()[1].capacity_bytes;
    assert_near(normal, (64 << 20) - (10 << 20), 64 << 20);
    // A compaction's output opens before its inputs close: a little more, then less.
    let output = cache.charge(512 << 10, 0);
    let grown = cache.tier_stats()[1].capacity_bytes;
    assert!(
        grown < normal,
        "a charge past the reservation shrinks data blocks at once"
    );
    drop(output);
    assert_eq!(
        cache.tier_stats()[1].capacity_bytes,
        grown,
        "one step back: kept"
    );
    drop(base);
    assert_near(cache.tier_stats()[1].capacity_bytes, 64 << 20, 64 << 20);
}
