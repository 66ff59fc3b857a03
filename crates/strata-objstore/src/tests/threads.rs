//! The writer and the fencer on real threads, racing freely, on `InMemory` and on a
//! `file://` store. The interleaving differs from run to run; the properties may not.

use std::sync::Arc;

use parking_lot::Mutex;

use super::{batch, deps, edit};
use crate::testing::run_on_other_thread;
use crate::{fence_stream, open_store, BlockingStore, StreamId, StreamReader, WalStreamWriter};

/// A zombie stops writing after this many batches, as its lease deadline would stop it.
/// Without that bound a writer on an in-memory store outruns the fencer for ever: the
/// fence is the backstop for a paused zombie, the lease for a running one.
const ZOMBIE_BATCHES: u64 = 300;

/// The zombie appends until it is fenced (or stops) while the master fences after
/// `delay_batches` acknowledged batches; every acknowledged seq must replay, none may
/// follow the fence.
fn race(store: BlockingStore, stream: StreamId, delay_batches: usize) {
    let acked = Arc::new(Mutex::new(Vec::new()));
    let (writer_store, writer_acked) = (store.clone(), acked.clone());
    let zombie = strata_runtime::thread::spawn("strata-objstore-zombie", move || {
        let mut writer = WalStreamWriter::new(writer_store, stream, 0, deps(1));
        for seq in 1..=ZOMBIE_BATCHES {
            match writer.append(&batch(&[edit(seq % 3, seq)])) {
                Ok(durable) => writer_acked.lock().push((durable.object_id, seq)),
                Err(e) if e.is_fenced() => return,
                Err(e) => panic!("unexpected error: {e}"),
            }
        }
    })
    .unwrap();
    while acked.lock().len() < delay_batches {
        std::thread::yield_now();
    }
    let master_store = store.clone();
    let fenced =
        run_on_other_thread(move || fence_stream(&master_store, stream, &deps(2))).unwrap();
    zombie.join().unwrap();
    let acked = acked.lock().clone();
    assert!(
        acked.iter().all(|(id, _)| *id < fenced.fence_id),
        "{acked:?} {}",
        fenced.fence_id
    );
    let reader = StreamReader::new(store, stream, deps(0).retry);
    let mut replayed: Vec<u64> = (0..3)
        .flat_map(|region| {
            reader
                .replay_region(&fenced.replay, region, 0..=u64::MAX)
                .unwrap()
        })
        .map(|e| e.seq)
        .collect();
    replayed.sort();
    let acked_seqs: Vec<u64> = acked.iter().map(|(_, seq)| *seq).collect();
    assert!(
        acked_seqs.iter().all(|s| replayed.contains(s)),
        "{acked_seqs:?} vs {replayed:?}"
    );
}

#[test]
fn a_free_race_on_memory_keeps_every_acknowledged_batch() {
    let store =
        BlockingStore::new(Arc::new(object_store::memory::InMemory::new()), "memory://").unwrap();
    for round in 0..20 {
        race(store.clone(), StreamId::new(1, round), (round % 5) as usize);
    }
}

#[test]
fn a_free_race_on_a_local_directory_keeps_every_acknowledged_batch() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_store(&format!("file://{}/store", dir.path().display())).unwrap();
    for round in 0..5 {
        race(store.clone(), StreamId::new(2, round), round as usize);
    }
}
