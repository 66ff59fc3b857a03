//! The second block-cache level (HBase's file-backed BucketCache under a CombinedBlockCache):
//! data blocks evicted from the in-memory level are written to one preallocated file on a
//! fast local device (SSD or tmpfs); a read that misses memory and finds its block here gets
//! it back (and the block cache promotes it to memory). Index and bloom blocks never come
//! here: they stay in memory with each open file.
//!
//! - `format.rs`: the bytes (file header, entries with a CRC32C each, the index).
//! - `ring.rs`: where entries go (a FIFO ring) and the in-memory index.
//! - `device.rs`: the file I/O. `recover.rs`: opening, and what survives a restart.
//! - `writer.rs`: the one thread that writes entries, so an eviction on the read path only
//!   queues the block.
//!
//! A restart keeps the cache when the previous process closed it cleanly: the close writes
//! the index next to the file; the open reads it and removes it, so after a crash there is
//! no index and the file's contents are discarded. Anything that does not match (magic,
//! version, configured size, checksums) is discarded with a warning, and an entry whose CRC
//! does not match when read is a miss, never returned.
//!
//! Why not `foyer` (the maintained Rust hybrid cache, whose disk tier is made for this):
//! it was evaluated (crates.io, November 2026, version 0.22.6) and not used because (1) it
//! requires Rust 1.91 while this workspace declares `rust-version = 1.85`; (2) its API is
//! async and its default runtime is tokio, so the synchronous engine (no tokio today) would
//! need a runtime of its own plus `block_on` with deadlines on every read that misses memory,
//! and tokio and foyer's own crates as new engine dependencies; (3) it is a memory+disk
//! cache of its own, so using only its disk tier under our quick_cache level means its
//! lower-level storage API. What Strata needs is small (a FIFO of immutable blocks with
//! CRCs and a persisted index), so it is written here in a few hundred lines.

mod device;
mod format;
mod recover;
mod ring;
mod writer;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use bytes::Bytes;
use parking_lot::Mutex;

use crate::error::Result;

use device::Device;
pub use format::L2Key;
use format::{decode_entry, Slot, ENTRY_HEADER_LEN};
use ring::Ring;
use writer::Job;

/// Smallest configurable size: the header region and room for a few blocks.
pub const MIN_CAPACITY_BYTES: u64 = 64 << 10;

/// Bytes of evicted blocks waiting for the writer before further ones are dropped, so a
/// slow device costs cache hits, never memory or read latency.
const QUEUE_BYTES: u64 = 16 << 20;

/// Where the second level lives and how large it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L2Options {
    /// A directory on a fast local device; holds the cache file `blocks` and, between a
    /// clean close and the next open, `index`.
    pub dir: PathBuf,
    /// Size of the cache file (its header included).
    pub capacity_bytes: u64,
}

/// Counters and sizes of the second level, for metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct L2Stats {
    /// Lookups (after a first-level miss) that found a valid entry.
    pub hits: u64,
    pub misses: u64,
    /// Entries written (blocks demoted from the first level).
    pub writes: u64,
    /// Entries overwritten to make room.
    pub evictions: u64,
    /// Blocks not written: queue full, larger than a quarter of the file, or a write error.
    pub rejected: u64,
    /// Entries whose bytes did not match their CRC when read (dropped, never returned).
    pub corrupt: u64,
    /// Entries recovered from the previous clean close.
    pub restored: u64,
    /// Blocks found here and put back into the first level.
    pub promotions: u64,
    /// Blocks evicted from the first level and queued for writing here.
    pub demotions: u64,
    pub entries: u64,
    /// Bytes of entries held (headers included).
    pub size_bytes: u64,
    pub capacity_bytes: u64,
}

/// What the cache and its writer thread share.
struct Shared {
    device: Device,
    /// Where the index goes at a clean close.
    index_path: PathBuf,
    capacity: u64,
    /// The cache file header's nonce (see `format::FileHeader`).
    nonce: u64,
    /// Largest block written (a quarter of the entry area: one block never empties it).
    max_block: u64,
    ring: Mutex<Ring>,
    queued_bytes: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    writes: AtomicU64,
    evictions: AtomicU64,
    rejected: AtomicU64,
    corrupt: AtomicU64,
    restored: u64,
    /// Set once a corrupt entry or a failed write was logged (they can come by the
    /// thousand when a device fails).
    warned_corrupt: AtomicBool,
    warned_write: AtomicBool,
}

/// The second level. Reads come from any thread; writes go through its writer thread.
pub struct L2Cache {
    shared: Arc<Shared>,
    /// `None` once closed (the writer then finishes what was queued and stops).
    jobs: Mutex<Option<Sender<Job>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for L2Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("L2Cache")
            .field("stats", &self.stats())
            .finish()
    }
}

impl L2Cache {
    /// Opens the cache in `options.dir`, keeping what a clean close left there if it
    /// matches, and starts its writer thread.
    pub fn open(options: &L2Options) -> Result<Arc<L2Cache>> {
        let shared = Arc::new(recover::open(options)?);
        let (tx, rx) = mpsc::channel();
        let for_writer = Arc::clone(&shared);
        let handle =
            crate::util::thread::spawn("strata-l2-writer", move || writer::run(&for_writer, rx))
                .map_err(|e| crate::error::Error::io(&options.dir, e))?;
        Ok(Arc::new(L2Cache {
            shared,
            jobs: Mutex::new(Some(tx)),
            writer: Mutex::new(Some(handle)),
        }))
    }

    /// The block stored under `key`, if there is a valid entry for it.
    pub fn get(&self, key: &L2Key) -> Option<Bytes> {
        let shared = &self.shared;
        // Bound first: the guard must be gone before `read`, which may lock again.
        let slot = shared.ring.lock().get(key);
        let found = slot.and_then(|slot| self.read(key, slot));
        let counter = if found.is_some() {
            &shared.hits
        } else {
            &shared.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Reads and checks the entry at `slot`. A mismatch is either an entry overwritten
    /// since the lookup (the writer drops a slot from the index before writing over it)
    /// or a damaged one (still indexed): the latter is dropped and counted.
    fn read(&self, key: &L2Key, slot: Slot) -> Option<Bytes> {
        let shared = &self.shared;
        let len = ENTRY_HEADER_LEN + slot.len as usize;
        // A read error is a miss too (logged once, with the error).
        let error = match shared.device.read_at(slot.pos, len) {
            Ok(entry) => match decode_entry(entry, *key, &slot) {
                Some(bytes) => return Some(bytes),
                None => None,
            },
            Err(e) => Some(e.to_string()),
        };
        if shared.ring.lock().remove_at(key, slot.pos) {
            shared.corrupt.fetch_add(1, Ordering::Relaxed);
            if !shared.warned_corrupt.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    pos = slot.pos,
                    ?error,
                    "an L2 cache entry failed its check and was dropped (further ones are \
                     counted in the l2 corrupt metric, not logged)"
                );
            }
        }
        None
    }

    /// True if `key` has an entry (not checked: for skipping a second write).
    pub fn contains(&self, key: &L2Key) -> bool {
        self.shared.ring.lock().get(key).is_some()
    }

    /// Queues `block` to be written under `key`; false if it was dropped instead (queue
    /// full, block too large, cache closed).
    pub fn offer(&self, key: L2Key, block: Bytes) -> bool {
        let shared = &self.shared;
        let len = block.len() as u64;
        let queued = shared.queued_bytes.fetch_add(len, Ordering::Relaxed);
        let sent = len <= shared.max_block
            && queued + len <= QUEUE_BYTES
            && self
                .jobs
                .lock()
                .as_ref()
                .is_some_and(|jobs| jobs.send(Job::Write(key, block)).is_ok());
        if !sent {
            shared.queued_bytes.fetch_sub(len, Ordering::Relaxed);
            shared.rejected.fetch_add(1, Ordering::Relaxed);
        }
        sent
    }

    /// Waits until every block queued so far is written (or dropped).
    pub fn flush(&self) {
        let (done_tx, done_rx) = mpsc::channel();
        let sent = self
            .jobs
            .lock()
            .as_ref()
            .is_some_and(|jobs| jobs.send(Job::Flush(done_tx)).is_ok());
        if sent {
            // The writer answers after the jobs queued before this one; if it stopped,
            // the sender is dropped and this returns too.
            let _ = done_rx.recv();
        }
    }

    /// Writes what is queued, syncs the file and persists the index, so the next open
    /// serves these entries again. Later offers are dropped; reads still work.
    pub fn close(&self) -> Result<()> {
        if !self.stop_writer() {
            return Ok(());
        }
        let shared = &self.shared;
        shared.device.sync()?;
        let index = shared.ring.lock().index();
        let bytes = format::encode_index(shared.capacity, shared.nonce, &index);
        device::write_file_atomically(&shared.index_path, &bytes)
    }

    /// Stops the writer after it has written what was queued; false if it was stopped
    /// already.
    fn stop_writer(&self) -> bool {
        let Some(jobs) = self.jobs.lock().take() else {
            return false;
        };
        drop(jobs);
        if let Some(handle) = self.writer.lock().take() {
            if handle.join().is_err() {
                tracing::warn!("the L2 cache writer thread panicked");
            }
        }
        true
    }

    pub fn stats(&self) -> L2Stats {
        let s = &self.shared;
        let (entries, size_bytes) = {
            let ring = s.ring.lock();
            (ring.len() as u64, ring.used())
        };
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        L2Stats {
            hits: load(&s.hits),
            misses: load(&s.misses),
            writes: load(&s.writes),
            evictions: load(&s.evictions),
            rejected: load(&s.rejected),
            corrupt: load(&s.corrupt),
            restored: s.restored,
            promotions: 0,
            demotions: 0,
            entries,
            size_bytes,
            capacity_bytes: s.capacity,
        }
    }
}

impl Drop for L2Cache {
    /// Without `close`: the writer stops, and no index is written, so the next open
    /// discards the file (as after a crash).
    fn drop(&mut self) {
        self.stop_writer();
    }
}
