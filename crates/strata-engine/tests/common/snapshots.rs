//! Snapshot steps for the model test: take a snapshot of the region under test (the model
//! is kept as it was), or replace the region by a clone of the last snapshot (the model
//! goes back to the kept one). Every read after that must match the older model exactly.

use std::sync::atomic::{AtomicUsize, Ordering};

use rand::Rng;
use strata_engine::RowRange;

use super::harness::Harness;

/// Restores done in this process, so a test can tell that it restored at all.
pub static RESTORES: AtomicUsize = AtomicUsize::new(0);

impl Harness {
    /// A harness that also takes snapshots and restores from them.
    pub fn with_snapshots(seed: u64) -> Harness {
        let mut h = Harness::new(seed);
        h.snapshots = true;
        h
    }

    /// Takes a snapshot (replacing the last one), or restores the last one.
    pub fn snapshot_step(&mut self) {
        match &self.saved {
            Some(_) if self.rng.random_bool(0.5) => self.restore_last_snapshot(),
            _ => self.take_snapshot(),
        }
    }

    fn take_snapshot(&mut self) {
        self.last_op = "snapshot";
        let engine = self.engine.clone().unwrap();
        let name = format!("s{}", self.ops);
        engine
            .take_snapshot(&name, Vec::new(), &[(self.region_id, RowRange::all())])
            .unwrap_or_else(|e| panic!("seed {}: snapshot: {e}", self.seed));
        // A snapshot flushes the region first.
        self.model.flush();
        if let Some((old, _)) = self.saved.replace((name, self.model.clone())) {
            engine.delete_snapshot(&old).unwrap();
        }
    }

    /// As `restore_snapshot` does: the region is dropped and a new one, under a new id,
    /// is made of the snapshot's files.
    fn restore_last_snapshot(&mut self) {
        self.last_op = "restore snapshot";
        let Some((name, model)) = self.saved.clone() else {
            return;
        };
        let engine = self.engine.clone().unwrap();
        self.region = None;
        engine.close_region(self.region_id).unwrap();
        engine.drop_region(self.region_id).unwrap();
        self.region_id += 1;
        engine
            .create_regions_from_snapshot(&name, &self.region_families(), &[self.region_id])
            .unwrap_or_else(|e| panic!("seed {}: restore {name}: {e}", self.seed));
        self.model = model;
        self.open_region();
        RESTORES.fetch_add(1, Ordering::Relaxed);
    }
}
