//! Block cache tests: counters, partitions, and the charges of open files.

use super::block_cache::ENTRY_OVERHEAD;
use super::*;
use crate::cache::{L2Cache, L2Options};
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

fn l2(dir: &tempfile::TempDir) -> std::sync::Arc<L2Cache> {
    let options = L2Options {
        dir: dir.path().join("l2"),
        capacity_bytes: 1 << 20,
    };
    L2Cache::open(&options).unwrap()
}

#[test]
fn evicted_blocks_of_open_files_go_to_l2_and_come_back_promoted() {
    let dir = tempfile::tempdir().unwrap();
    let cache = BlockCache::with_l2(64 * 1024, Some(l2(&dir)));
    let open = cache.open_file(1, 77, 0, 0);
    let closed = cache.open_file(2, 88, 0, 0);
    drop(closed);
    for i in 0..100 {
        cache.insert((1, i), block(4096), Priority::Normal);
        cache.insert((2, i), block(4096), Priority::Normal);
    }
    cache.flush_l2();
    let s = cache.stats();
    let l2s = s.l2.unwrap();
    assert!(s.evictions > 100, "{s:?}");
    assert!(l2s.demotions > 50 && l2s.writes == l2s.demotions, "{l2s:?}");
    // Block 0 of file 1 was evicted first; it is in the second level under the file's
    // identity, and a closed file's blocks are not there at all.
    assert!(cache.get(&(1, 0)).is_none());
    let bytes = cache.get_l2(&(77, 0)).expect("demoted");
    assert_eq!(bytes, block(4096).into_bytes());
    assert!(cache.get_l2(&(88, 0)).is_none(), "closed file: not demoted");
    let promoted = Block::new(bytes, std::sync::Arc::from(std::path::Path::new("t")), 0).unwrap();
    cache.promote((1, 0), promoted, Priority::Normal);
    assert!(cache.get(&(1, 0)).is_some(), "back in memory");
    assert_eq!(cache.stats().l2.unwrap().promotions, 1);
    drop(open);
}

#[test]
fn without_l2_nothing_is_demoted_and_stats_have_no_second_level() {
    let cache = BlockCache::new(64 * 1024);
    let _open = cache.open_file(1, 77, 0, 0);
    for i in 0..100 {
        cache.insert((1, i), block(4096), Priority::Normal);
    }
    assert!(cache.get_l2(&(77, 0)).is_none());
    assert_eq!(cache.stats().l2, None);
}
