//! Block round trips and seek semantics against a `BTreeMap` model.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::cell::CellType;
use crate::key::make_key;

fn random_model(rng: &mut SmallRng, n: usize) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut model = BTreeMap::new();
    while model.len() < n {
        let row = format!("row{:04}", rng.random_range(0..200u32));
        let qual = format!("q{}", rng.random_range(0..5u32));
        let key = make_key(
            row.as_bytes(),
            qual.as_bytes(),
            rng.random_range(0..1000),
            CellType::Put,
            rng.random_range(0..50),
        );
        let value: Vec<u8> = (0..rng.random_range(0..20)).map(|_| rng.random()).collect();
        model.insert(key, value);
    }
    model
}

fn build(model: &BTreeMap<Vec<u8>, Vec<u8>>, interval: usize) -> Block {
    let mut b = BlockBuilder::new(interval);
    for (k, v) in model {
        b.add(k, v);
    }
    let path: Arc<Path> = Arc::from(Path::new("block.sst"));
    Block::new(Bytes::from(b.finish()), path, 0).unwrap()
}

fn collect(block: &Block) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = BlockIter::new(block.clone());
    it.seek_to_first().unwrap();
    let mut out = Vec::new();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.advance().unwrap();
    }
    out
}

/// Probe keys: every model key, a key just above each, and keys below and above everything.
fn probes(model: &BTreeMap<Vec<u8>, Vec<u8>>) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new(), vec![0xFF; 4]];
    for k in model.keys() {
        out.push(k.clone());
        let mut above = k.clone();
        above.push(0);
        out.push(above);
        out.push(k[..k.len() - 1].to_vec());
    }
    out
}

#[test]
fn round_trip_both_encodings() {
    let mut rng = SmallRng::seed_from_u64(1);
    for interval in [1, PREFIX_RESTART_INTERVAL] {
        for n in [1, 2, 15, 16, 17, 300] {
            let model = random_model(&mut rng, n);
            let block = build(&model, interval);
            let expected: Vec<_> = model.clone().into_iter().collect();
            assert_eq!(collect(&block), expected, "interval {interval}, n {n}");
        }
    }
}

#[test]
fn prefix_encoding_is_smaller() {
    let mut rng = SmallRng::seed_from_u64(2);
    let model = random_model(&mut rng, 200);
    assert!(build(&model, PREFIX_RESTART_INTERVAL).size() < build(&model, 1).size());
}

#[test]
fn seek_and_last_key_before_match_model() {
    let mut rng = SmallRng::seed_from_u64(3);
    for interval in [1, PREFIX_RESTART_INTERVAL] {
        let model = random_model(&mut rng, 100);
        let block = build(&model, interval);
        for target in probes(&model) {
            let mut it = BlockIter::new(block.clone());
            it.seek(&target).unwrap();
            let want = model.range(target.clone()..).next();
            assert_eq!(
                it.valid().then(|| (it.key().to_vec(), it.value().to_vec())),
                want.map(|(k, v)| (k.clone(), v.clone())),
            );
            let before = it.last_key_before(&target).unwrap();
            let want = model
                .range(..target.clone())
                .next_back()
                .map(|(k, _)| k.clone());
            assert_eq!(before, want);
        }
    }
}

#[test]
fn empty_block_is_never_valid() {
    let block = build(&BTreeMap::new(), 16);
    let mut it = BlockIter::new(block);
    it.seek_to_first().unwrap();
    assert!(!it.valid());
    it.seek(b"x").unwrap();
    assert!(!it.valid());
    assert_eq!(it.last_key_before(b"x").unwrap(), None);
}

#[test]
fn garbage_blocks_error_instead_of_panicking() {
    let mut rng = SmallRng::seed_from_u64(4);
    let model = random_model(&mut rng, 40);
    let mut b = BlockBuilder::new(PREFIX_RESTART_INTERVAL);
    for (k, v) in &model {
        b.add(k, v);
    }
    let good = b.finish();
    let path: Arc<Path> = Arc::from(Path::new("g.sst"));
    let mut errors = 0;
    for round in 0..2000 {
        let mut bytes = good.clone();
        for _ in 0..1 + round % 4 {
            let i = rng.random_range(0..bytes.len());
            bytes[i] = rng.random();
        }
        if round % 7 == 0 {
            bytes.truncate(rng.random_range(0..bytes.len()));
        }
        let Ok(block) = Block::new(Bytes::from(bytes), path.clone(), 9) else {
            errors += 1;
            continue;
        };
        let mut it = BlockIter::new(block);
        let result = (|| {
            it.seek_to_first()?;
            while it.valid() {
                it.advance()?;
            }
            it.seek(b"row0100")?;
            it.last_key_before(b"row0150")
        })();
        if let Err(e) = result {
            assert!(e.is_corruption());
            assert!(e.to_string().contains("g.sst"));
            errors += 1;
        }
    }
    assert!(
        errors > 100,
        "only {errors} of 2000 damaged blocks were detected"
    );
}
