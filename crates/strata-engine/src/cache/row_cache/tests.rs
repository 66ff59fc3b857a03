use std::sync::Arc;

use bytes::Bytes;

use super::*;
use crate::api::{Get, RowResult, TimeRange};
use crate::cell::Cell;

fn key(row: &str) -> RowKey {
    RowKey {
        region: 1,
        row: Bytes::copy_from_slice(row.as_bytes()),
    }
}

fn result(row: &str, value: &str) -> RowResult {
    RowResult {
        row: Bytes::copy_from_slice(row.as_bytes()),
        cells: vec![Cell::put(row.to_string(), "cf", "q", 5, value.to_string())],
    }
}

/// Caches `value` as the answer to `get` of `row` under epoch 0 and view 1.
fn cache_answer(cache: &RowCache, row: &str, get: &Get, value: &str) -> bool {
    let ticket = cache.start_read(&key(row)).expect("no write in flight");
    let answer = Answer::new(get, (0, vec![1]), i64::MAX, Some(&result(row, value)));
    cache.insert(ticket, key(row), answer)
}

fn value_of(answer: Option<Option<RowResult>>) -> Option<Bytes> {
    answer.flatten().map(|r| r.cells[0].value.clone())
}

#[test]
fn an_answer_serves_only_its_own_query() {
    let cache = RowCache::new(1 << 20);
    let get = Get::new("r").family("cf");
    assert!(cache_answer(&cache, "r", &get, "v"));
    let hit = cache.lookup(&key("r"), &get, (0, &[1]), 0);
    assert_eq!(value_of(hit), Some(Bytes::from("v")));
    let others = [
        get.clone().versions(2),
        get.clone().time_range(TimeRange::new(0, 10)),
        Get::new("r").column("cf", "q"),
        Get::new("r"),
    ];
    for other in &others {
        assert!(
            cache.lookup(&key("r"), other, (0, &[1]), 0).is_none(),
            "{other:?}"
        );
    }
    assert!(cache.lookup(&key("r2"), &get, (0, &[1]), 0).is_none());
    let stats = cache.stats();
    assert_eq!((stats.hits, stats.misses, stats.inserts), (1, 5, 1));
}

#[test]
fn an_answer_is_not_served_over_other_views_settings_or_after_it_expires() {
    let cache = RowCache::new(1 << 20);
    let get = Get::new("r");
    let ticket = cache.start_read(&key("r")).unwrap();
    let answer = Answer::new(&get, (3, vec![7, 8]), 100, Some(&result("r", "v")));
    assert!(cache.insert(ticket, key("r"), answer));
    assert!(cache.lookup(&key("r"), &get, (3, &[7, 8]), 99).is_some());
    assert!(
        cache.lookup(&key("r"), &get, (3, &[7, 8]), 100).is_none(),
        "expired"
    );
    assert!(
        cache.lookup(&key("r"), &get, (3, &[7, 9]), 0).is_none(),
        "a new view"
    );
    assert!(
        cache.lookup(&key("r"), &get, (4, &[7, 8]), 0).is_none(),
        "an alter"
    );
}

#[test]
fn a_write_in_flight_bypasses_the_cache_and_drops_the_row_when_it_leaves() {
    let cache = RowCache::new(1 << 20);
    let get = Get::new("r");
    assert!(cache_answer(&cache, "r", &get, "old"));
    let row = Bytes::from("r");
    let fence = cache.fence_write(1, [&row, &row]).expect("the cache is on");
    assert!(
        cache.start_read(&key("r")).is_none(),
        "no read may use the cache now"
    );
    drop(fence);
    assert!(cache.lookup(&key("r"), &get, (0, &[1]), 0).is_none());
    let stats = cache.stats();
    assert_eq!((stats.invalidations, stats.entries), (1, 0));
    assert!(cache.start_read(&key("r")).is_some(), "the fence is gone");
}

#[test]
fn an_answer_read_before_a_write_is_refused_even_after_the_write_left() {
    let cache = RowCache::new(1 << 20);
    let get = Get::new("r");
    let ticket = cache.start_read(&key("r")).unwrap();
    let row = Bytes::from("r");
    drop(cache.fence_write(1, [&row]));
    let stale = Answer::new(&get, (0, vec![1]), i64::MAX, Some(&result("r", "old")));
    assert!(!cache.insert(ticket, key("r"), stale));
    assert!(cache.lookup(&key("r"), &get, (0, &[1]), 0).is_none());
    assert_eq!(cache.stats().stale_refused, 1);
}

#[test]
fn a_row_keeps_a_few_queries_the_newest_first() {
    let cache = RowCache::new(1 << 20);
    let gets: Vec<Get> = (1..=MAX_ANSWERS_PER_ROW as u32 + 1)
        .map(|v| Get::new("r").versions(v))
        .collect();
    for (i, get) in gets.iter().enumerate() {
        assert!(cache_answer(&cache, "r", get, &format!("v{i}")));
    }
    let first = cache.lookup(&key("r"), &gets[0], (0, &[1]), 0);
    assert!(first.is_none(), "the oldest query made room");
    for (i, get) in gets.iter().enumerate().skip(1) {
        let hit = cache.lookup(&key("r"), get, (0, &[1]), 0);
        assert_eq!(value_of(hit), Some(Bytes::from(format!("v{i}"))));
    }
    assert_eq!(cache.stats().entries, 1);
}

#[test]
fn the_cache_stays_within_its_capacity_and_counts_evictions() {
    let capacity = 64 * 1024;
    let cache = RowCache::new(capacity);
    let get = Get::new("r");
    let big = "x".repeat(500);
    for i in 0..2000 {
        cache_answer(&cache, &format!("row{i}"), &get, &big);
    }
    let stats = cache.stats();
    assert!(stats.size_bytes <= capacity, "{stats:?}");
    assert!(stats.evictions > 0 && stats.entries < 2000, "{stats:?}");
    assert!(stats.size_bytes > capacity / 2, "{stats:?}");
}

#[test]
fn the_cached_bytes_are_copies_not_slices_of_the_read_buffers() {
    let block = Bytes::from(vec![b'v'; 64 * 1024]);
    let mut read = result("r", "");
    read.cells[0].value = block.slice(0..3);
    let answer = Answer::new(&Get::new("r"), (0, vec![]), i64::MAX, Some(&read));
    drop(read);
    // `block` is the only owner left: had the answer kept a slice, it could not be unique.
    assert!(block.is_unique());
    assert_eq!(answer.result.unwrap().cells[0].value, "vvv");
}

#[test]
fn a_closed_region_leaves_nothing_behind_and_a_zero_capacity_cache_is_off() {
    let cache = RowCache::new(1 << 20);
    assert!(cache_answer(&cache, "r", &Get::new("r"), "v"));
    cache.forget_region(2);
    assert_eq!(cache.stats().entries, 1, "another region's rows stay");
    cache.forget_region(1);
    assert_eq!(cache.stats().entries, 0);
    let off = RowCache::new(0);
    assert!(!off.is_enabled());
    assert!(off.start_read(&key("r")).is_none());
    assert!(off.fence_write(1, [&Bytes::from("r")]).is_none());
    assert_eq!(Arc::strong_count(&off), 1);
}
