//! Concurrent readers never see part of a mutation: writers update two families of many
//! rows in one atomic mutation while readers get and scan, flushes and compactions run, and
//! every row a reader sees must carry the same version in both families.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use strata_engine::fs::MemFs;
use strata_engine::{
    Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, Region, RegionSpec, Scan,
};

const ROWS: u32 = 20;

fn row(i: u32) -> Vec<u8> {
    format!("row{i:03}").into_bytes()
}

/// Version token per family of a row, as seen by one read.
fn tokens(result: &strata_engine::RowResult) -> (Vec<u8>, Vec<u8>) {
    let of = |f: &[u8]| {
        result
            .cells
            .iter()
            .find(|c| c.family.as_ref() == f)
            .map(|c| c.value.to_vec())
            .unwrap_or_default()
    };
    (of(b"a"), of(b"b"))
}

fn writer(region: Arc<Region>, rounds: u32) {
    for round in 1..=rounds {
        // One mutation touches every row in both families: all of it or none must show.
        let token = round.to_be_bytes().to_vec();
        let cells = (0..ROWS)
            .flat_map(|i| {
                [
                    Cell::put(row(i), "a", "q", i64::from(round), token.clone()),
                    Cell::put(row(i), "b", "q", i64::from(round), token.clone()),
                ]
            })
            .collect();
        region.mutate(cells, Durability::SkipWal).unwrap();
        if round % 50 == 0 {
            region.flush().unwrap();
        }
        if round % 120 == 0 {
            region.compact(false).unwrap();
        }
    }
}

fn reader(region: Arc<Region>, stop: Arc<AtomicBool>) -> u64 {
    let mut checked = 0;
    let mut last_seen = 0u32;
    while !stop.load(Ordering::Acquire) {
        let rows: Vec<_> = region
            .scan(&Scan::new())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let first = rows.first().map(tokens);
        for r in &rows {
            let (a, b) = tokens(r);
            assert_eq!(a, b, "row {:?} shows half a mutation", r.row);
            assert_eq!(
                Some((a, b)),
                first.clone(),
                "one scan saw two different mutations"
            );
        }
        if let Some((a, _)) = first.filter(|(a, _)| a.len() == 4) {
            let seen = u32::from_be_bytes(a.try_into().unwrap());
            assert!(seen >= last_seen, "a later read went back in time");
            last_seen = seen;
        }
        let got = region.get(&Get::new(row(checked as u32 % ROWS))).unwrap();
        if let Some(got) = got {
            let (a, b) = tokens(&got);
            assert_eq!(a, b, "get shows half a mutation");
        }
        checked += 1;
    }
    checked
}

#[test]
fn readers_never_see_part_of_a_mutation() {
    let mut opts = EngineOptions::new("/db");
    opts.fs = Arc::new(MemFs::new());
    opts.background_work = false;
    let engine = Engine::open(opts).unwrap();
    let families = vec![FamilyOptions::new("a"), FamilyOptions::new("b")];
    let region = engine.open_region(RegionSpec { id: 1, families }).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (region, stop) = (Arc::clone(&region), Arc::clone(&stop));
            std::thread::spawn(move || reader(region, stop))
        })
        .collect();
    writer(Arc::clone(&region), 400);
    stop.store(true, Ordering::Release);
    for r in readers {
        assert!(r.join().unwrap() > 0, "each reader ran");
    }
    let last = region.get(&Get::new(row(0))).unwrap().unwrap();
    assert_eq!(tokens(&last).0, 400u32.to_be_bytes().to_vec());
}
