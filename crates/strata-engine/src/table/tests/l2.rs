//! Table reads through both cache levels: a tiny in-memory level whose evictions go to a
//! second level in a file, compared with reads that use no cache at all.

use std::sync::Arc;

use rand::Rng;

use super::*;
use crate::cache::{L2Cache, L2Options};

fn l2(dir: &tempfile::TempDir) -> Arc<L2Cache> {
    let options = L2Options {
        dir: dir.path().join("l2"),
        capacity_bytes: 4 << 20,
    };
    L2Cache::open(&options).unwrap()
}

fn small_blocks() -> TableOptions {
    TableOptions {
        block_size: 256,
        ..Default::default()
    }
}

#[test]
fn the_l2_identity_follows_the_bytes_not_the_open() {
    let mut rng = rng(21);
    let (bytes, _) = build(&random_model(&mut rng, 400), small_blocks());
    let a = open(bytes.clone(), None).unwrap();
    let b = open(bytes, None).unwrap();
    assert_ne!(a.file_id(), b.file_id(), "per-process ids differ");
    assert_eq!(
        a.l2_id(),
        b.l2_id(),
        "the same bytes have the same identity"
    );
    let (other, _) = build(&random_model(&mut rng, 400), small_blocks());
    assert_ne!(open(other, None).unwrap().l2_id(), a.l2_id());
}

#[test]
fn random_reads_through_a_tiny_memory_level_and_l2_match_uncached_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rng(22);
    let model = random_model(&mut rng, 3000);
    let (bytes, _) = build(&model, small_blocks());
    let plain = open(bytes.clone(), None).unwrap();
    let cache = BlockCache::with_l2(16 << 10, Some(l2(&dir)));
    let cached = open(bytes, Some(Arc::clone(&cache))).unwrap();
    let keys: Vec<&Vec<u8>> = model.keys().collect();
    let (mut want, mut got) = (plain.iter(), cached.iter());
    for round in 0..600 {
        let target = keys[rng.random_range(0..keys.len())];
        want.seek(target).unwrap();
        got.seek(target).unwrap();
        for _ in 0..rng.random_range(0..20) {
            assert_eq!(got.valid(), want.valid(), "round {round}");
            if !want.valid() {
                break;
            }
            assert_eq!(got.key(), want.key(), "round {round}");
            assert_eq!(got.value(), want.value(), "round {round}");
            want.next().unwrap();
            got.next().unwrap();
        }
        if round % 50 == 0 {
            cache.flush_l2(); // let demoted blocks land, so later rounds can hit them
        }
    }
    assert_eq!(
        scan(&mut cached.iter()).unwrap(),
        scan(&mut plain.iter()).unwrap()
    );
    let l2 = cache.stats().l2.unwrap();
    assert!(l2.demotions > 0, "{l2:?}");
    assert!(l2.hits > 0 && l2.promotions > 0, "{l2:?}");
    assert_eq!(l2.corrupt, 0);
}

#[test]
fn blocks_evicted_from_memory_are_read_back_from_l2_and_promoted() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rng(23);
    let model = random_model(&mut rng, 3000);
    let (bytes, _) = build(&model, small_blocks());
    let cache = BlockCache::with_l2(16 << 10, Some(l2(&dir)));
    let table = open(bytes, Some(Arc::clone(&cache))).unwrap();
    let expected: Vec<_> = model.into_iter().collect();
    assert_eq!(scan(&mut table.iter()).unwrap(), expected);
    cache.flush_l2();
    let first = cache.stats();
    let l2 = first.l2.unwrap();
    assert!(l2.writes > 0 && l2.entries > 0, "{l2:?}");
    // The second pass finds what memory lost in the second level.
    assert_eq!(scan(&mut table.iter()).unwrap(), expected);
    let second = cache.stats();
    let l2_after = second.l2.unwrap();
    assert!(l2_after.hits > l2.hits, "{l2_after:?}");
    assert_eq!(l2_after.promotions - l2.promotions, l2_after.hits - l2.hits);
    assert!(
        second.inserts - first.inserts >= l2_after.promotions - l2.promotions,
        "promoted blocks are inserted into memory"
    );
}

#[test]
fn reads_that_do_not_fill_the_cache_leave_both_levels_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rng(24);
    let model = random_model(&mut rng, 3000);
    let (bytes, _) = build(&model, small_blocks());
    let cache = BlockCache::with_l2(16 << 10, Some(l2(&dir)));
    let table = open(bytes, Some(Arc::clone(&cache))).unwrap();
    let expected: Vec<_> = model.into_iter().collect();
    assert_eq!(
        scan(&mut table.iter_without_cache_fill()).unwrap(),
        expected
    );
    cache.flush_l2();
    let s = cache.stats();
    let l2 = s.l2.unwrap();
    assert_eq!((s.inserts, s.entries), (0, 0), "{s:?}");
    assert_eq!((l2.demotions, l2.writes, l2.entries), (0, 0, 0), "{l2:?}");
}
