//! Random edits survive several segment rolls and reopenings.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::fs::FileSystem;
use crate::options::Durability;
use crate::wal::tests::support::{as_replayed, open, opts, random_edit, segment_numbers, TestFs};

#[test]
fn random_edits_round_trip_across_rolls_and_reopens() {
    for seed in [1u64, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let fs: Arc<dyn FileSystem> = Arc::new(TestFs::default());
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut expected = Vec::new();
        let (wal, replayed) = open(Arc::clone(&fs), dir.path(), opts(4096)).unwrap();
        assert!(replayed.is_empty());
        for seq in 1..=300u64 {
            let region = rng.random_range(0..4);
            let edit = random_edit(&mut rng, region, seq);
            let durability = match rng.random_range(0..4) {
                0 => Durability::SkipWal,
                1 => Durability::AsyncWal,
                2 => Durability::SyncWal,
                _ => Durability::FsyncWal,
            };
            wal.append(&edit, durability).unwrap();
            if durability != Durability::SkipWal {
                expected.push(as_replayed(&edit));
            }
        }
        let stats = wal.stats();
        assert!(stats.rolls >= 3, "seed {seed}: only {} rolls", stats.rolls);
        assert_eq!(stats.appends, expected.len() as u64);
        wal.close().unwrap();
        let segments_before = segment_numbers(dir.path());
        assert!(
            segments_before.len() >= 4,
            "seed {seed}: {segments_before:?}"
        );

        // Replay twice: replayed segments are kept, and each open adds one new segment.
        for round in 0..2 {
            let (wal, replayed) = open(Arc::clone(&fs), dir.path(), opts(4096)).unwrap();
            assert_eq!(replayed.len(), expected.len(), "seed {seed} round {round}");
            assert!(
                replayed == expected,
                "seed {seed} round {round}: replay differs"
            );
            wal.close().unwrap();
        }
        assert_eq!(segment_numbers(dir.path()).len(), segments_before.len() + 2);
    }
}

#[test]
fn edit_larger_than_a_segment_is_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn FileSystem> = Arc::new(TestFs::default());
    let (wal, _) = open(Arc::clone(&fs), dir.path(), opts(1024)).unwrap();
    let big = crate::wal::WalEdit::new(
        1,
        9,
        vec![crate::cell::Cell::put(
            "r",
            "f",
            "q",
            1,
            vec![0xabu8; 100_000],
        )],
    );
    wal.append(&big, Durability::SyncWal).unwrap();
    wal.append(
        &crate::wal::tests::support::simple_edit(1, 10),
        Durability::SyncWal,
    )
    .unwrap();
    wal.close().unwrap();
    let (wal, replayed) = open(fs, dir.path(), opts(1024)).unwrap();
    assert_eq!(replayed.len(), 2);
    assert_eq!(replayed[0], as_replayed(&big));
    assert_eq!(replayed[1].seq, 10);
    wal.close().unwrap();
}
