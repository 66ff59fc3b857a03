//! Deterministic interleavings of the group-commit queue around a failed batch: what is
//! queued behind a failure fails with it, and a read-modify-write that read before a
//! failure can never be logged after it.

use std::sync::mpsc;

use crate::error::{Error, Result};
use crate::options::Durability;
use crate::wal::group_commit::{Batch, GroupCommit, Request};

fn request(record: &[u8], seq: u64) -> Request<'_> {
    Request {
        record,
        seq: Some(seq),
        durability: Durability::SyncWal,
        internal: false,
    }
}

fn failing(_: &Batch) -> Result<()> {
    Err(Error::Closed("injected".into()))
}

fn succeeding(_: &Batch) -> Result<()> {
    Ok(())
}

#[test]
fn a_failed_batch_fails_the_batch_queued_behind_it() {
    let queue = GroupCommit::new();
    let guard = queue.failure_guard().unwrap();
    let first = queue
        .enqueue(request(b"a", 1), Some(guard))
        .unwrap()
        .unwrap();
    let (started, leader_started) = mpsc::channel();
    let (release, go) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let queue = &queue;
        let leader = s.spawn(move || {
            // The leader takes batch {a}, then blocks inside its write until released.
            let write = |batch: &Batch| {
                assert_eq!(batch.bytes, b"a");
                started.send(()).unwrap();
                go.recv().unwrap();
                failing(batch)
            };
            queue
                .wait(first, &write)
                .err()
                .map(|f| f.error().to_string())
        });
        leader_started.recv().unwrap();
        // Queued while batch {a} is being written: it may have read a's value.
        let second = queue
            .enqueue(request(b"b", 2), Some(guard))
            .unwrap()
            .unwrap();
        release.send(()).unwrap();
        let leader_error = leader.join().unwrap();
        assert!(leader_error.unwrap().contains("injected"));
        let behind = queue.wait(second, &succeeding);
        let failed = behind.expect_err("the batch queued behind a failure fails too");
        assert!(failed.error().to_string().contains("injected"));
        // The leader's FailedWait is gone; this one is still undoing its edit.
        assert!(
            matches!(queue.failure_guard(), Err(Error::TooBusy(_))),
            "guards are refused while a failed write is being undone"
        );
        drop(failed);
    });
    assert!(
        matches!(
            queue.enqueue(request(b"c", 3), Some(guard)),
            Err(Error::TooBusy(_))
        ),
        "a guard taken before the failure never passes"
    );
    let fresh = queue.failure_guard().expect("every failed waiter resolved");
    let ticket = queue
        .enqueue(request(b"c", 3), Some(fresh))
        .unwrap()
        .unwrap();
    assert!(queue.wait(ticket, &succeeding).is_ok());
}

#[test]
fn unguarded_writes_and_async_edits_go_on_during_a_failure() {
    let queue = GroupCommit::new();
    let first = queue.enqueue(request(b"a", 1), None).unwrap().unwrap();
    let failed = queue.wait(first, &failing).err().unwrap();
    // A plain put reads nothing, so it need not wait for the undo.
    let plain = queue.enqueue(request(b"p", 2), None).unwrap().unwrap();
    assert!(queue.wait(plain, &succeeding).is_ok());
    let mut async_req = request(b"q", 3);
    async_req.durability = Durability::AsyncWal;
    assert!(queue.enqueue(async_req, None).unwrap().is_none());
    drop(failed);
    assert!(queue.failure_guard().is_ok());
}

#[test]
fn a_panicking_leader_fails_its_batch_and_the_one_behind_it() {
    let queue = GroupCommit::new();
    let first = queue.enqueue(request(b"a", 1), None).unwrap().unwrap();
    let second = queue.enqueue(request(b"b", 2), None).unwrap().unwrap();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let write = |_: &Batch| -> Result<()> { panic!("leader dies") };
        let _ = queue.wait(first, &write);
    }));
    assert!(panicked.is_err());
    // Both requests were in the batch the leader took; a third, queued after, succeeds.
    let failed = queue.wait(second, &succeeding).err().unwrap();
    assert!(matches!(failed.error(), Error::Closed(_)));
    drop(failed);
    let guard = queue
        .failure_guard()
        .expect("the dead leader is not waited for");
    let third = queue
        .enqueue(request(b"c", 3), Some(guard))
        .unwrap()
        .unwrap();
    assert!(queue.wait(third, &succeeding).is_ok());
}
