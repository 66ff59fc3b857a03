//! Seeded random operations (appends, injected failures, syncs, segment deletion, reopens)
//! checked against a model of what must survive.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::options::Durability;
use crate::wal::tests::support::{as_replayed, open, opts, random_edit, TestFs};
use crate::wal::Wal;

/// What the WAL must and may hold.
#[derive(Default)]
struct Model {
    /// Acknowledged edits.
    acked: BTreeSet<u64>,
    /// Every edit ever submitted (acked or failed).
    attempted: BTreeSet<u64>,
    /// `mark_flushed` was called with this: edits below it may be gone.
    flushed_below: u64,
}

impl Model {
    fn check(&self, seed: u64, replayed: &[u64]) {
        let set: BTreeSet<u64> = replayed.iter().copied().collect();
        assert_eq!(set.len(), replayed.len(), "seed {seed}: duplicate replay");
        assert!(
            set.is_subset(&self.attempted),
            "seed {seed}: replayed an edit never written"
        );
        for seq in self.acked.range(self.flushed_below..) {
            assert!(set.contains(seq), "seed {seed}: lost acked edit {seq}");
        }
    }
}

fn reopen(fs: &TestFs, dir: &std::path::Path) -> (Arc<Wal>, Vec<u64>) {
    let mut replayed = Vec::new();
    let wal = Wal::open(
        Arc::new(fs.clone()),
        crate::util::clock::system(),
        dir.to_path_buf(),
        opts(2048),
        &mut |e| {
            // The payload is regenerated from the seed of its seq, so content is checked too.
            let mut edit_rng = SmallRng::seed_from_u64(e.seq);
            assert_eq!(
                e,
                as_replayed(&random_edit(&mut edit_rng, e.region_id, e.seq))
            );
            replayed.push(e.seq);
            Ok(())
        },
    )
    .unwrap();
    (wal, replayed)
}

fn run(seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let fs = TestFs::default();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut model = Model::default();
    let (mut wal, _) = open(Arc::new(fs.clone()), dir.path(), opts(2048)).unwrap();
    let mut seq = 0u64;
    for _ in 0..200 {
        match rng.random_range(0..100) {
            0..=69 => {
                seq += rng.random_range(1..4);
                let region = seq % 5;
                let edit = random_edit(&mut SmallRng::seed_from_u64(seq), region, seq);
                let fault = rng.random_range(0..100);
                fs.ctl.fail_writes.store(fault < 4, Ordering::SeqCst);
                fs.ctl
                    .tear_appends
                    .store((4..8).contains(&fault), Ordering::SeqCst);
                fs.ctl
                    .fail_syncs
                    .store((8..10).contains(&fault), Ordering::SeqCst);
                let durability = if rng.random_bool(0.5) {
                    Durability::SyncWal
                } else {
                    Durability::FsyncWal
                };
                model.attempted.insert(seq);
                if wal.append(&edit, durability).is_ok() {
                    model.acked.insert(seq);
                }
                fs.ctl.fail_writes.store(false, Ordering::SeqCst);
                fs.ctl.tear_appends.store(false, Ordering::SeqCst);
                fs.ctl.fail_syncs.store(false, Ordering::SeqCst);
            }
            70..=84 => {
                let cutoff = rng.random_range(model.flushed_below..=seq + 1);
                wal.mark_flushed(cutoff).unwrap();
                model.flushed_below = cutoff;
            }
            85..=92 => wal.sync().unwrap(),
            _ => {
                wal.close().unwrap();
                let (reopened, replayed) = reopen(&fs, dir.path());
                model.check(seed, &replayed);
                wal = reopened;
            }
        }
    }
    wal.close().unwrap();
    let (wal, replayed) = reopen(&fs, dir.path());
    model.check(seed, &replayed);
    wal.close().unwrap();
}

#[test]
fn random_operations_with_faults_keep_every_acked_unflushed_edit() {
    for seed in 1..=12 {
        run(seed);
    }
}
