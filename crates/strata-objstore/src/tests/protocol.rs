//! Writer vs. fencer interleavings and ambiguous PUTs, each scripted step by step.

use std::sync::Arc;

use parking_lot::Mutex;

use super::{batch, deps, edit, Harness};
use crate::testing::{run_on_other_thread, Fault, Op};
use crate::{fence_stream, Error, Fenced, WalStreamWriter};

/// Decoded edits carry their edit's seq in every cell.
fn seqs(edits: &[strata_engine::codec::WalEdit]) -> Vec<u64> {
    edits.iter().map(|e| e.seq).collect()
}

/// A fault action that fences the harness's stream (on another thread, as a master
/// would) and records the outcome in `out`.
fn fencer_action(
    h: &Harness,
    seed: u64,
    out: &Arc<Mutex<Vec<Fenced>>>,
) -> Box<dyn FnOnce() + Send> {
    let (store, stream, out) = (h.master_store.clone(), h.stream, out.clone());
    Box::new(move || {
        let fenced = run_on_other_thread(move || fence_stream(&store, stream, &deps(seed)));
        out.lock().push(fenced.unwrap());
    })
}

#[test]
fn a_put_before_the_fence_is_acknowledged_and_replayed() {
    let h = Harness::new();
    let mut zombie = h.writer(1);
    assert_eq!(zombie.append(&batch(&[edit(1, 1)])).unwrap().object_id, 0);
    let fenced = h.fence(2).unwrap();
    assert_eq!(fenced.fence_id, 1);
    assert_eq!(seqs(&h.replay(&fenced, 1)), [1]);
    let err = zombie.append(&batch(&[edit(1, 2)])).unwrap_err();
    assert!(err.is_fenced(), "{err}");
    assert!(zombie.is_fenced());
    // Refused for good, without touching the store again.
    assert!(zombie
        .append(&batch(&[edit(1, 3)]))
        .unwrap_err()
        .is_fenced());
}

#[test]
fn a_put_after_the_fence_is_refused() {
    let h = Harness::new();
    let fenced = h.fence(2).unwrap();
    assert_eq!((fenced.fence_id, fenced.replay.len()), (0, 0));
    let mut zombie = h.writer(1);
    let err = zombie.append(&batch(&[edit(1, 1)])).unwrap_err();
    assert!(matches!(err, Error::Fenced { object_id: 0, .. }), "{err}");
}

#[test]
fn a_fence_landing_while_the_put_is_in_flight_wins() {
    let h = Harness::new();
    let mut zombie = h.writer(1);
    zombie.append(&batch(&[edit(1, 1)])).unwrap();
    let fences = Arc::new(Mutex::new(Vec::new()));
    h.faults
        .inject(Op::Put, Fault::RunBefore(fencer_action(&h, 2, &fences)));
    assert!(zombie
        .append(&batch(&[edit(1, 2)]))
        .unwrap_err()
        .is_fenced());
    let fenced = fences.lock().pop().unwrap();
    assert_eq!(fenced.fence_id, 1);
    assert_eq!(seqs(&h.replay(&fenced, 1)), [1]);
}

#[test]
fn a_writer_winning_the_race_is_replayed_and_the_fencer_steps_over() {
    let h = Harness::new();
    let zombie = Arc::new(Mutex::new(h.writer(1)));
    zombie.lock().append(&batch(&[edit(1, 1)])).unwrap();
    // The fencer has listed (max id 0); before its PUT at 1, the zombie stores id 1.
    let acked = Arc::new(Mutex::new(None));
    let (z, a) = (zombie.clone(), acked.clone());
    h.master_faults.inject(
        Op::Put,
        Fault::RunBefore(Box::new(move || {
            let durable = run_on_other_thread(move || z.lock().append(&batch(&[edit(1, 2)])));
            *a.lock() = Some(durable.unwrap().object_id);
        })),
    );
    let fenced = h.fence(2).unwrap();
    assert_eq!(*acked.lock(), Some(1));
    assert_eq!(fenced.fence_id, 2);
    assert_eq!(seqs(&h.replay(&fenced, 1)), [1, 2]);
    assert!(zombie
        .lock()
        .append(&batch(&[edit(1, 3)]))
        .unwrap_err()
        .is_fenced());
}

/// Regression (found by the free race in `threads.rs`): a fencer that stepped one id at a
/// time never caught up with a writer storing an object per step; it now lists again and
/// aims past the new head.
#[test]
fn the_fencer_catches_up_with_a_writer_that_keeps_writing() {
    let h = Harness::new();
    let zombie = Arc::new(Mutex::new(h.writer(1)));
    zombie.lock().append(&batch(&[edit(1, 1)])).unwrap();
    let z = zombie.clone();
    h.master_faults.inject(
        Op::Put,
        Fault::RunBefore(Box::new(move || {
            run_on_other_thread(move || {
                for seq in 2..=6 {
                    z.lock().append(&batch(&[edit(1, seq)])).unwrap();
                }
            })
        })),
    );
    let fenced = h.fence(2).unwrap();
    assert_eq!(
        fenced.fence_id, 6,
        "one lost id, then straight past the new head"
    );
    assert_eq!(seqs(&h.replay(&fenced, 1)), [1, 2, 3, 4, 5, 6]);
    assert!(zombie
        .lock()
        .append(&batch(&[edit(1, 7)]))
        .unwrap_err()
        .is_fenced());
}

#[test]
fn an_ambiguous_put_that_landed_is_acknowledged_after_reading_back_the_token() {
    let h = Harness::new();
    let mut writer = h.writer(1);
    h.faults.inject(Op::Put, Fault::FailAfter);
    let durable = writer.append(&batch(&[edit(4, 9)])).unwrap();
    assert_eq!(durable.object_id, 0);
    assert_eq!(writer.next_id(), 1);
    assert_eq!(h.faults.pending_faults(), 0);
    let fenced = h.fence(2).unwrap();
    assert_eq!(seqs(&h.replay(&fenced, 4)), [9]);
}

#[test]
fn an_ambiguous_put_whose_id_the_fencer_took_is_fenced_not_acknowledged() {
    let h = Harness::new();
    let mut zombie = h.writer(1);
    let fences = Arc::new(Mutex::new(Vec::new()));
    // The PUT times out without landing; meanwhile the fencer takes id 0.
    h.faults
        .inject(Op::Put, Fault::RunThenFail(fencer_action(&h, 2, &fences)));
    let err = zombie.append(&batch(&[edit(1, 1)])).unwrap_err();
    assert!(matches!(err, Error::Fenced { object_id: 0, .. }), "{err}");
    let fenced = fences.lock().pop().unwrap();
    assert_eq!((fenced.fence_id, fenced.replay.len()), (0, 0));
}

#[test]
fn an_ambiguous_put_that_landed_before_the_fence_is_acknowledged_and_replayed() {
    let h = Harness::new();
    let mut zombie = h.writer(1);
    let fences = Arc::new(Mutex::new(Vec::new()));
    // Stored, then the fencer runs (and sees it), then the response is lost.
    h.faults.inject(
        Op::Put,
        Fault::RunAfterThenFail(fencer_action(&h, 2, &fences)),
    );
    assert_eq!(zombie.append(&batch(&[edit(1, 1)])).unwrap().object_id, 0);
    let fenced = fences.lock().pop().unwrap();
    assert_eq!(fenced.fence_id, 1);
    assert_eq!(seqs(&h.replay(&fenced, 1)), [1]);
    assert!(zombie
        .append(&batch(&[edit(1, 2)]))
        .unwrap_err()
        .is_fenced());
}

#[test]
fn a_write_whose_outcome_stays_unknown_fails_and_is_put_again_first() {
    let h = Harness::new();
    let mut writer = h.writer(1);
    let attempts = deps(0).retry.attempts;
    // Every attempt times out before reaching the store: the outcome stays unknown.
    for _ in 0..attempts {
        h.faults.inject(Op::Put, Fault::FailBefore);
    }
    let err = writer.append(&batch(&[edit(1, 1)])).unwrap_err();
    assert!(err.kind().is_retryable() && !err.is_fenced(), "{err}");
    assert_eq!(writer.next_id(), 0);
    // The next append settles the unknown write (same id and bytes), then goes on at 1.
    assert_eq!(writer.append(&batch(&[edit(1, 2)])).unwrap().object_id, 1);
    let fenced = h.fence(2).unwrap();
    assert_eq!(seqs(&h.replay(&fenced, 1)), [1, 2]);
}

#[test]
fn a_failed_read_back_is_retried() {
    let h = Harness::new();
    let mut writer = h.writer(1);
    h.faults.inject(Op::Put, Fault::FailAfter);
    h.faults.inject(Op::Get, Fault::FailBefore);
    assert_eq!(writer.append(&batch(&[edit(1, 1)])).unwrap().object_id, 0);
    assert_eq!(h.faults.pending_faults(), 0);
}

#[test]
fn the_fencers_own_ambiguous_put_counts_as_its_fence() {
    let h = Harness::new();
    h.writer(1).append(&batch(&[edit(1, 1)])).unwrap();
    h.master_faults.inject(Op::Put, Fault::FailAfter);
    let fenced = h.fence(2).unwrap();
    assert_eq!(fenced.fence_id, 1, "no second fence at 2");
    assert_eq!(h.master_store.list(&h.stream.prefix()).unwrap().len(), 2);
}

#[test]
fn a_second_fencer_replays_only_up_to_the_first_fence() {
    let h = Harness::new();
    let mut zombie = h.writer(1);
    zombie.append(&batch(&[edit(1, 1), edit(2, 2)])).unwrap();
    let first = h.fence(2).unwrap();
    let second = h.fence(3).unwrap();
    assert_eq!((first.fence_id, second.fence_id), (1, 2));
    assert_eq!(second.replay, first.replay);
    assert_eq!(seqs(&h.replay(&second, 2)), [2]);
    assert!(h.replay(&second, 3).is_empty());
}

#[test]
fn a_group_commit_batch_is_sectioned_by_region() {
    let h = Harness::new();
    let mut writer = h.writer(1);
    let mut framed = Vec::new();
    for e in [edit(2, 1), edit(1, 2), edit(2, 3)] {
        let record = strata_engine::codec::encode_record(1, |b| e.encode_payload(b)).unwrap();
        framed.extend_from_slice(&record);
    }
    assert_eq!(writer.append_framed(&framed).unwrap().object_id, 0);
    let fenced = h.fence(2).unwrap();
    assert_eq!(seqs(&h.replay(&fenced, 2)), [1, 3]);
    assert_eq!(seqs(&h.replay(&fenced, 1)), [2]);
}

#[test]
fn replay_filters_by_region_and_seq() {
    let h = Harness::new();
    let mut writer: WalStreamWriter = h.writer(1);
    writer
        .append(&batch(&[edit(1, 1), edit(2, 2), edit(1, 3)]))
        .unwrap();
    writer.append(&batch(&[edit(2, 4), edit(1, 5)])).unwrap();
    let fenced = h.fence(2).unwrap();
    let reader = crate::StreamReader::new(h.master_store.clone(), h.stream, deps(0).retry);
    let some = reader.replay_region(&fenced.replay, 1, 3..=4).unwrap();
    assert_eq!(seqs(&some), [3]);
    assert_eq!(seqs(&h.replay(&fenced, 2)), [2, 4]);
}

#[test]
fn a_hole_in_the_stream_is_corruption_naming_it() {
    let h = Harness::new();
    let mut writer = h.writer(1);
    for seq in 0..3 {
        writer.append(&batch(&[edit(1, seq)])).unwrap();
    }
    h.master_store.delete(&h.stream.object_path(1)).unwrap();
    let err = h.fence(2).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::Corruption, "{err}");
    assert!(
        err.to_string().contains(h.stream.prefix().as_ref()),
        "{err}"
    );
}
