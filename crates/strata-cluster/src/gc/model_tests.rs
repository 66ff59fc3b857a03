//! The collector against a simple model: random flushes (some left uncommitted for a
//! while, as an in-flight commit), compactions whose inputs a reader may hold, splits
//! whose daughter refers to its parent's files, dropped regions, and time steps, with a
//! pass after each step. No referenced, held or young object may ever be deleted, and once
//! the activity stops every other object goes.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata_runtime::clock::Clock;

use super::live::manifest_key;
use super::tests::{data, sst, Bed, MIN_AGE};

/// A manifest's files: relative path, and whether it is a reference.
type Files = Vec<(String, bool)>;

#[derive(Clone, Default)]
struct Store {
    /// The committed manifest number (0: none) and its files (relative path, reference).
    pointer: u64,
    files: Vec<(String, bool)>,
    /// A manifest written but not committed yet: number, files, written at (ms).
    pending: Option<(u64, Files, i64)>,
    next: u64,
}

struct Model {
    stores: HashMap<u64, Store>,
    live: HashSet<u64>,
    /// Held keys and when their reader lets go (ms).
    held: HashMap<String, i64>,
    /// When each object was written (ms).
    written: HashMap<String, i64>,
    next_region: u64,
    next_file: u64,
}

impl Model {
    fn write(&mut self, bed: &Bed, key: String) {
        bed.put(&key);
        self.written.insert(key, bed.clock.now_millis());
    }

    fn new_file(&mut self, bed: &Bed, rid: u64) -> String {
        self.next_file += 1;
        let path = sst(rid, "cf", &format!("{:016}-s1i1", self.next_file));
        self.write(bed, data(&path));
        path
    }

    fn write_manifest(&mut self, bed: &Bed, rid: u64, files: &[(String, bool)]) -> u64 {
        let store = self.stores.entry(rid).or_default();
        store.next += 1;
        let number = store.next;
        bed.manifest(rid, "cf", number, files);
        self.written
            .insert(manifest_key(rid, "cf", number), bed.clock.now_millis());
        number
    }

    fn commit(&mut self, bed: &Bed, rid: u64, number: u64, files: Vec<(String, bool)>) {
        let store = self.stores.entry(rid).or_default();
        store.pointer = number;
        store.files = files;
        store.pending = None;
        self.sync(bed);
    }

    /// What the collector reads, from the model.
    fn sync(&self, bed: &Bed) {
        let mut state = bed.state();
        state.live_regions = self.live.clone();
        state.pointers = self
            .stores
            .iter()
            .filter(|(_, s)| s.pointer > 0)
            .map(|(rid, s)| (*rid, "cf".to_string(), s.pointer))
            .collect();
        state.held = self.held.keys().cloned().collect();
    }

    /// Keys that must exist now: live manifests and files, pointed-to manifests, held
    /// and young objects.
    fn must_keep(&self, now_ms: i64, min_age: Duration) -> HashSet<String> {
        let mut keep: HashSet<String> = self.held.keys().cloned().collect();
        for (rid, store) in &self.stores {
            if store.pointer > 0 {
                keep.insert(manifest_key(*rid, "cf", store.pointer));
            }
            if self.live.contains(rid) {
                keep.extend(store.files.iter().map(|(p, _)| data(p)));
            }
        }
        let young = i64::try_from(min_age.as_millis()).unwrap();
        keep.extend(
            self.written
                .iter()
                .filter(|(_, at)| now_ms - **at < young)
                .map(|(k, _)| k.clone()),
        );
        keep
    }
}

fn step(model: &mut Model, bed: &Bed, rng: &mut StdRng) {
    let now = bed.clock.now_millis();
    let live: Vec<u64> = {
        let mut v: Vec<u64> = model.live.iter().copied().collect();
        v.sort_unstable();
        v
    };
    let Some(&rid) = live.get(rng.random_range(0..live.len().max(1))) else {
        return;
    };
    let store = model.stores.get(&rid).cloned().unwrap_or_default();
    match rng.random_range(0..10) {
        0..=2 => {
            // A flush; sometimes its commit is still on its way.
            let file = model.new_file(bed, rid);
            let mut files = store.files.clone();
            files.push((file, false));
            let number = model.write_manifest(bed, rid, &files);
            if rng.random_bool(0.7) {
                model.commit(bed, rid, number, files);
            } else if let Some(s) = model.stores.get_mut(&rid) {
                s.pending = Some((number, files, now));
            }
        }
        3 => {
            // The in-flight commit lands (within half the minimum age, as a commit under a
            // lease does) or is abandoned.
            if let Some((number, files, at)) = store.pending.clone() {
                let young = i64::try_from((MIN_AGE / 2).as_millis()).unwrap();
                if now - at < young {
                    model.commit(bed, rid, number, files);
                } else if let Some(s) = model.stores.get_mut(&rid) {
                    s.pending = None;
                }
            }
        }
        4..=5 => {
            // A major compaction; a scan may still read its inputs for a while.
            let file = model.new_file(bed, rid);
            let files = vec![(file, false)];
            let number = model.write_manifest(bed, rid, &files);
            let replaced = store.files.clone();
            model.commit(bed, rid, number, files);
            for (path, _) in replaced {
                if rng.random_bool(0.5) {
                    let until = now + rng.random_range(0..3 * 10_000);
                    model.held.insert(data(&path), until);
                }
            }
            model.sync(bed);
        }
        // A split into one daughter that refers to every file of the parent.
        6 if store.pointer > 0 => {
            model.next_region += 1;
            let daughter = model.next_region;
            let refs: Vec<(String, bool)> =
                store.files.iter().map(|(p, _)| (p.clone(), true)).collect();
            let number = model.write_manifest(bed, daughter, &refs);
            model.commit(bed, daughter, number, refs);
            model.live.insert(daughter);
            model.live.remove(&rid);
            model.sync(bed);
        }
        7 if rng.random_bool(0.3) => {
            model.live.remove(&rid);
            model.next_region += 1;
            model.live.insert(model.next_region);
            model.sync(bed);
        }
        _ => {}
    }
}

fn check(model: &Model, bed: &Bed) {
    let keep = model.must_keep(bed.clock.now_millis(), MIN_AGE);
    let present = bed.keys();
    for key in &keep {
        // Keys the model never wrote (the daughter's references name parent files).
        if model.written.contains_key(key) {
            assert!(present.contains(key), "{key} was deleted but must stay");
        }
    }
}

#[test]
fn nothing_needed_is_deleted_and_all_garbage_goes_eventually() {
    for seed in 0..12u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut bed = Bed::new();
        let mut model = Model {
            stores: HashMap::new(),
            live: (1..=3).collect(),
            held: HashMap::new(),
            written: HashMap::new(),
            next_region: 3,
            next_file: 0,
        };
        model.sync(&bed);
        for _ in 0..300 {
            step(&mut model, &bed, &mut rng);
            bed.advance(Duration::from_millis(rng.random_range(0..4_000)));
            let now = bed.clock.now_millis();
            model.held.retain(|_, until| *until > now);
            model.sync(&bed);
            bed.pass();
            check(&model, &bed);
        }
        // Quiet: readers let go, in-flight commits are abandoned, time passes.
        model.held.clear();
        for store in model.stores.values_mut() {
            store.pending = None;
        }
        model.sync(&bed);
        for _ in 0..3 {
            bed.advance(MIN_AGE);
            bed.pass();
            check(&model, &bed);
        }
        let keep = model.must_keep(bed.clock.now_millis(), MIN_AGE);
        let present = bed.keys();
        let left: Vec<&String> = present.difference(&keep).collect();
        assert!(left.is_empty(), "seed {seed}: garbage left: {left:?}");
        assert!(bed.stats.figures().strata_gc_deleted_objects_total > 0);
    }
}
