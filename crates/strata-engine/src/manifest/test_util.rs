//! Helpers shared by the manifest tests.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::state::{FileOrigin, ManifestState, StoreFileEntry};

/// A deterministic generator of plausible manifest states.
pub struct StateGen {
    rng: SmallRng,
}

impl StateGen {
    pub fn new(seed: u64) -> Self {
        StateGen {
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    fn bytes(&mut self, max_len: usize) -> Vec<u8> {
        let len = self.rng.random_range(0..=max_len);
        (0..len).map(|_| self.rng.random()).collect()
    }

    fn entry(&mut self, file_number: u64) -> StoreFileEntry {
        let r = &mut self.rng;
        StoreFileEntry {
            file_number,
            volume: format!("vol{}", r.random_range(0..3)),
            relative_path: format!("data/t/{file_number:020}.sst"),
            size: r.random(),
            entries: r.random_range(0..1_000_000),
            min_ts: r.random(),
            max_ts: r.random(),
            max_seq: r.random(),
            first_key: self.bytes(40),
            last_key: self.bytes(40),
            origin: if self.rng.random() {
                FileOrigin::Flush
            } else {
                FileOrigin::Compaction
            },
            created_at_ms: self.rng.random(),
            range: if self.rng.random() {
                Some(super::RowRange {
                    start: self.bytes(10),
                    end: self.bytes(10),
                })
            } else {
                None
            },
        }
    }

    /// A state with up to `max_files` distinct files, all below `next_file_number`.
    pub fn state(&mut self, max_files: usize) -> ManifestState {
        let next_file_number = self.rng.random_range(1..10_000u64);
        let count = self.rng.random_range(0..=max_files) as u64;
        let count = count.min(next_file_number - 1);
        let start = next_file_number - count;
        let mut state = ManifestState::empty();
        state.flushed_seq = self.rng.random();
        state.next_file_number = next_file_number;
        state.files = (start..next_file_number).map(|n| self.entry(n)).collect();
        state
    }
}
