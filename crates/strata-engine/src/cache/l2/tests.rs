//! Second-level tests: entries written and read back, overwritten in order, kept across a
//! clean close, and discarded (never served) when anything about them does not match.

use std::path::Path;

use bytes::Bytes;

use super::recover::{BLOCKS_FILE, INDEX_FILE};
use super::*;

const CAPACITY: u64 = 256 << 10;

fn options(dir: &Path, capacity_bytes: u64) -> L2Options {
    L2Options {
        dir: dir.join("l2"),
        capacity_bytes,
    }
}

/// A block of `len` bytes that differs for each `seed`.
fn block(seed: u64, len: usize) -> Bytes {
    (0..len)
        .map(|i| (seed as usize * 31 + i * 7) as u8)
        .collect::<Vec<u8>>()
        .into()
}

/// Offers blocks (1, 0..n) of `len` bytes and waits for them to be written.
fn fill(cache: &L2Cache, n: u64, len: usize) {
    for i in 0..n {
        assert!(cache.offer((1, i), block(i, len)));
    }
    cache.flush();
}

fn blocks_file(dir: &Path) -> std::path::PathBuf {
    dir.join("l2").join(BLOCKS_FILE)
}

#[test]
fn blocks_written_are_read_back_and_unknown_keys_miss() {
    let dir = tempfile::tempdir().unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    fill(&cache, 10, 1000);
    for i in 0..10 {
        assert_eq!(cache.get(&(1, i)), Some(block(i, 1000)), "block {i}");
    }
    assert_eq!(cache.get(&(2, 0)), None, "another table's block");
    assert!(cache.contains(&(1, 3)) && !cache.contains(&(1, 10)));
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.writes, s.entries), (10, 1, 10, 10));
    assert_eq!(s.size_bytes, 10 * (1000 + ENTRY_HEADER_LEN as u64));
    assert_eq!(s.capacity_bytes, CAPACITY);
}

#[test]
fn a_full_cache_overwrites_its_oldest_entries() {
    let dir = tempfile::tempdir().unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    // Each entry is 16 KiB + 32: fifteen fit in the 252 KiB area.
    fill(&cache, 40, 16 << 10);
    let s = cache.stats();
    assert_eq!(s.writes, 40);
    assert_eq!(s.evictions + s.entries, 40, "{s:?}");
    assert!(s.size_bytes <= CAPACITY - format::HEADER_REGION, "{s:?}");
    assert_eq!(cache.get(&(1, 0)), None, "the oldest went first");
    assert_eq!(cache.get(&(1, 39)), Some(block(39, 16 << 10)));
    for i in 40 - s.entries..40 {
        assert_eq!(cache.get(&(1, i)), Some(block(i, 16 << 10)), "block {i}");
    }
}

#[test]
fn blocks_too_large_for_the_file_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    assert!(!cache.offer((1, 0), block(0, (CAPACITY / 2) as usize)));
    cache.flush();
    assert_eq!(cache.stats().rejected, 1);
    assert_eq!(cache.get(&(1, 0)), None);
    assert!(
        L2Cache::open(&options(dir.path(), 1024)).is_err(),
        "too small"
    );
}

#[test]
fn a_clean_close_keeps_the_entries_for_the_next_open() {
    let dir = tempfile::tempdir().unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    fill(&cache, 12, 3000);
    cache.close().unwrap();
    assert!(
        !cache.offer((1, 99), block(99, 10)),
        "closed: no more writes"
    );
    drop(cache);
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    assert_eq!(cache.stats().restored, 12);
    for i in 0..12 {
        assert_eq!(cache.get(&(1, i)), Some(block(i, 3000)), "block {i}");
    }
    // New writes continue after the restored ones instead of overwriting them.
    assert!(cache.offer((2, 0), block(100, 3000)));
    cache.flush();
    assert_eq!(cache.stats().entries, 13);
    assert_eq!(cache.get(&(1, 0)), Some(block(0, 3000)));
}

#[test]
fn without_a_clean_close_the_next_open_starts_empty() {
    let dir = tempfile::tempdir().unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    fill(&cache, 5, 3000);
    drop(cache); // a crash, as far as the cache is concerned
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    assert_eq!(cache.stats().entries, 0);
    assert_eq!(cache.get(&(1, 0)), None);
}

#[test]
fn an_index_serves_one_open_only() {
    let dir = tempfile::tempdir().unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    fill(&cache, 5, 3000);
    cache.close().unwrap();
    drop(cache);
    let index = dir.path().join("l2").join(INDEX_FILE);
    let saved = std::fs::read(&index).unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    assert!(!index.exists(), "read and removed");
    drop(cache); // crash
    std::fs::write(&index, saved).unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    assert_eq!(
        cache.stats().entries,
        0,
        "the old index names an old header"
    );
}

/// Closes a cache holding blocks (1, 0..5) of 3000 bytes, damages its files with `damage`,
/// and reopens it with `capacity`.
fn reopen_damaged(capacity: u64, damage: impl FnOnce(&Path)) -> (tempfile::TempDir, Arc<L2Cache>) {
    let dir = tempfile::tempdir().unwrap();
    let cache = L2Cache::open(&options(dir.path(), CAPACITY)).unwrap();
    fill(&cache, 5, 3000);
    cache.close().unwrap();
    drop(cache);
    damage(dir.path());
    let cache = L2Cache::open(&options(dir.path(), capacity)).unwrap();
    (dir, cache)
}

fn flip_byte(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x40;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_damaged_entry_is_a_miss_and_the_others_are_served() {
    let entry = 3000 + ENTRY_HEADER_LEN;
    let first = format::HEADER_REGION as usize;
    let (_dir, cache) = reopen_damaged(CAPACITY, |dir| {
        // A byte in the body of the third entry (entries were written in order).
        flip_byte(
            &blocks_file(dir),
            first + 2 * entry + ENTRY_HEADER_LEN + 100,
        );
    });
    assert_eq!(cache.stats().restored, 5);
    assert_eq!(cache.get(&(1, 2)), None, "never served");
    assert_eq!(cache.stats().corrupt, 1);
    assert!(!cache.contains(&(1, 2)), "dropped");
    for i in [0, 1, 3, 4] {
        assert_eq!(cache.get(&(1, i)), Some(block(i, 3000)), "block {i}");
    }
}

#[test]
fn a_damaged_header_discards_everything() {
    let (_dir, cache) = reopen_damaged(CAPACITY, |dir| flip_byte(&blocks_file(dir), 20));
    assert_eq!(cache.stats().entries, 0);
    assert_eq!(cache.get(&(1, 0)), None);
}

#[test]
fn a_damaged_index_discards_everything() {
    let (_dir, cache) = reopen_damaged(CAPACITY, |dir| {
        flip_byte(&dir.join("l2").join(INDEX_FILE), 60);
    });
    assert_eq!(cache.stats().entries, 0);
    assert_eq!(cache.get(&(1, 1)), None);
}

#[test]
fn a_truncated_file_is_discarded_and_sized_again() {
    let (dir, cache) = reopen_damaged(CAPACITY, |dir| {
        let bytes = std::fs::read(blocks_file(dir)).unwrap();
        std::fs::write(blocks_file(dir), &bytes[..bytes.len() / 2]).unwrap();
    });
    assert_eq!(cache.stats().entries, 0);
    assert_eq!(cache.get(&(1, 0)), None);
    let len = std::fs::metadata(blocks_file(dir.path())).unwrap().len();
    assert_eq!(len, CAPACITY);
}

#[test]
fn another_configured_size_discards_everything() {
    let (dir, cache) = reopen_damaged(2 * CAPACITY, |_| {});
    assert_eq!(cache.stats().entries, 0);
    assert_eq!(cache.get(&(1, 0)), None);
    let len = std::fs::metadata(blocks_file(dir.path())).unwrap().len();
    assert_eq!(len, 2 * CAPACITY);
}
