//! The `Wal` over a test backend: what crosses the seam (batches, durability, flushed
//! points, replayed edits, errors), independent of segment files.

use std::sync::Arc;

use parking_lot::Mutex;

use super::support::{opts, simple_edit};
use crate::error::{Error, Result};
use crate::options::Durability;
use crate::util::clock::ManualClock;
use crate::wal::{Wal, WalBackend, WalBackendOpener, WalBatch, WalEdit};

/// What the backend saw, shared with the test.
#[derive(Debug, Default)]
struct Seen {
    batches: Vec<(usize, Durability, Option<u64>)>,
    flushed: Vec<u64>,
    closed: bool,
    fail_writes: bool,
}

struct RecordingBackend(Arc<Mutex<Seen>>);

impl WalBackend for RecordingBackend {
    fn write_batch(&self, batch: &WalBatch<'_>) -> Result<()> {
        let mut seen = self.0.lock();
        if seen.fail_writes {
            return Err(Error::WalFenced("test fence".into()));
        }
        let entry = (batch.records.len(), batch.durability, batch.max_seq);
        seen.batches.push(entry);
        Ok(())
    }

    fn mark_flushed(&self, min_unflushed_seq: u64) -> Result<usize> {
        self.0.lock().flushed.push(min_unflushed_seq);
        Ok(0)
    }

    fn close(&self) -> Result<()> {
        self.0.lock().closed = true;
        Ok(())
    }
}

/// Replays `edits`, then hands out a recording backend.
struct Opener {
    seen: Arc<Mutex<Seen>>,
    edits: Vec<WalEdit>,
}

impl WalBackendOpener for Opener {
    fn open(&self, on_edit: &mut dyn FnMut(WalEdit) -> Result<()>) -> Result<Box<dyn WalBackend>> {
        for edit in &self.edits {
            on_edit(edit.clone())?;
        }
        Ok(Box::new(RecordingBackend(Arc::clone(&self.seen))))
    }
}

fn open(edits: Vec<WalEdit>) -> (Arc<Wal>, Arc<Mutex<Seen>>, Vec<WalEdit>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let opener = Opener {
        seen: Arc::clone(&seen),
        edits,
    };
    let mut replayed = Vec::new();
    let clock = Arc::new(ManualClock::new(0));
    let wal = Wal::open_backend(&opener, clock, opts(1 << 20), &mut |e| {
        replayed.push(e);
        Ok(())
    })
    .unwrap();
    (wal, seen, replayed)
}

#[test]
fn batches_flushed_points_and_replay_cross_the_seam() {
    let (wal, seen, replayed) = open(vec![simple_edit(1, 1), simple_edit(2, 2)]);
    assert_eq!(replayed.len(), 2);
    wal.append(&simple_edit(1, 3), Durability::SkipWal).unwrap();
    wal.append(&simple_edit(1, 4), Durability::SyncWal).unwrap();
    wal.append(&simple_edit(1, 5), Durability::FsyncWal)
        .unwrap();
    assert_eq!(wal.mark_flushed(5).unwrap(), 0);
    wal.close().unwrap();
    let seen = seen.lock();
    let edits: Vec<_> = seen.batches.iter().filter(|b| b.0 > 0).collect();
    assert_eq!(edits.len(), 2, "{:?}", seen.batches);
    assert_eq!((edits[0].1, edits[0].2), (Durability::SyncWal, Some(4)));
    assert_eq!((edits[1].1, edits[1].2), (Durability::FsyncWal, Some(5)));
    assert_eq!(seen.flushed, vec![5]);
    assert!(seen.closed);
}

#[test]
fn a_backend_error_fails_the_append_with_that_error() {
    let (wal, seen, _) = open(Vec::new());
    seen.lock().fail_writes = true;
    let err = wal
        .append(&simple_edit(1, 1), Durability::SyncWal)
        .unwrap_err();
    assert!(err.is_wal_fenced(), "{err}");
    assert!(!err.kind().is_retryable());
}
