//! Protocol tests: format round trips, the start-up probe, writer vs. fencer interleavings
//! and a randomized model check, all deterministic (seeded tokens, a manual clock, scripted
//! faults).

mod engine_wal;
mod format;
mod inside_runtime;
mod model;
mod probe;
mod protocol;
mod shared_engine;
mod threads;

use std::sync::Arc;

use object_store::memory::InMemory;
use object_store::ObjectStore;
use strata_engine::codec::WalEdit;
use strata_engine::Cell;
use strata_runtime::clock::ManualClock;

use crate::testing::FaultyStore;
use crate::{BlockingStore, RetryPolicy, SeededTokens, StreamId, WalObjectBuilder, WriterDeps};

/// Dependencies with seeded tokens and a clock that never really sleeps.
pub(crate) fn deps(seed: u64) -> WriterDeps {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    WriterDeps {
        tokens: Arc::new(SeededTokens::new(seed)),
        clock: clock.clone(),
        retry: RetryPolicy::with_clock(clock),
    }
}

/// One edit of `region` at `seq` with a value naming both.
pub(crate) fn edit(region: u64, seq: u64) -> WalEdit {
    let value = format!("r{region}s{seq}");
    WalEdit::new(
        region,
        seq,
        vec![Cell::put("row", "f", "q", seq as i64, value)],
    )
}

/// A batch of `edits`.
pub(crate) fn batch(edits: &[WalEdit]) -> WalObjectBuilder {
    let mut builder = WalObjectBuilder::new();
    for e in edits {
        builder.add_edit(e).unwrap();
    }
    builder
}

impl Harness {
    /// A writer of the harness's stream through the faulty view, tokens from `seed`.
    pub fn writer(&self, seed: u64) -> crate::WalStreamWriter {
        crate::WalStreamWriter::new(self.writer_store.clone(), self.stream, 0, deps(seed))
    }

    /// Fences the stream from the master's view, with tokens from `seed`.
    pub fn fence(&self, seed: u64) -> crate::Result<crate::Fenced> {
        crate::fence_stream(&self.master_store, self.stream, &deps(seed))
    }

    /// Every edit of `region` a new owner would replay after `fenced`.
    pub fn replay(&self, fenced: &crate::Fenced, region: u64) -> Vec<WalEdit> {
        let reader =
            crate::StreamReader::new(self.master_store.clone(), self.stream, deps(0).retry);
        reader
            .replay_region(&fenced.replay, region, 0..=u64::MAX)
            .unwrap()
    }
}

/// A shared in-memory store seen two ways: the zombie writer's view goes through a
/// `FaultyStore`, the master's (fencer, reader) does not.
pub(crate) struct Harness {
    /// Faults of the writer's requests.
    pub faults: Arc<FaultyStore>,
    /// Faults of the master's (fencer's) requests.
    pub master_faults: Arc<FaultyStore>,
    pub writer_store: BlockingStore,
    pub master_store: BlockingStore,
    pub stream: StreamId,
}

impl Harness {
    pub fn new() -> Self {
        let memory = Arc::new(InMemory::new());
        let faults = Arc::new(FaultyStore::new(memory.clone() as Arc<dyn ObjectStore>));
        let master_faults = Arc::new(FaultyStore::new(memory.clone() as Arc<dyn ObjectStore>));
        Harness {
            writer_store: BlockingStore::new(faults.clone(), "memory://writer").unwrap(),
            master_store: BlockingStore::new(master_faults.clone(), "memory://master").unwrap(),
            faults,
            master_faults,
            stream: StreamId::new(11, 1),
        }
    }
}
