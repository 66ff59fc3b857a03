//! The writer thread: takes queued blocks in order, reserves their place in the ring, and
//! writes them. One writer means one write position, so the ring needs no coordination
//! beyond the index lock, which is never held during I/O.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, Sender};

use bytes::Bytes;

use super::format::{encode_entry, L2Key, Slot};
use super::Shared;

/// What the writer is asked to do.
pub(super) enum Job {
    /// Write a block evicted from the first level.
    Write(L2Key, Bytes),
    /// Answer once everything queued before is done.
    Flush(Sender<()>),
}

/// Runs until every sender is gone and the queue is empty.
pub(super) fn run(shared: &Shared, jobs: Receiver<Job>) {
    for job in jobs {
        match job {
            Job::Write(key, block) => {
                shared
                    .queued_bytes
                    .fetch_sub(block.len() as u64, Ordering::Relaxed);
                write(shared, key, &block);
            }
            Job::Flush(done) => {
                // The asker may have given up waiting; nothing to do then.
                let _ = done.send(());
            }
        }
    }
}

fn write(shared: &Shared, key: L2Key, block: &[u8]) {
    let (entry, crc) = encode_entry(key, block);
    let reserved = {
        let mut ring = shared.ring.lock();
        if ring.get(&key).is_some() {
            return; // queued twice (evicted again before the first write): written once
        }
        ring.allocate(entry.len() as u64)
    };
    let Some((pos, overwritten)) = reserved else {
        shared.rejected.fetch_add(1, Ordering::Relaxed);
        return;
    };
    shared
        .evictions
        .fetch_add(overwritten.len() as u64, Ordering::Relaxed);
    if let Err(e) = shared.device.write_at(pos, &entry) {
        shared.rejected.fetch_add(1, Ordering::Relaxed);
        if !shared.warned_write.swap(true, Ordering::Relaxed) {
            tracing::warn!(error = %e, "an L2 cache write failed (further failures are counted \
                in the l2 rejected metric, not logged)");
        }
        return;
    }
    // `offer` refused blocks over `max_block`, which is below u32::MAX.
    let len = u32::try_from(block.len()).unwrap_or(u32::MAX);
    shared.ring.lock().insert(key, Slot { pos, len, crc });
    shared.writes.fetch_add(1, Ordering::Relaxed);
}
