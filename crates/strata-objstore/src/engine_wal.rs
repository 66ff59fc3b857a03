//! The engine's WAL backend on a WAL object stream: one group-commit batch becomes one
//! object of this server incarnation's stream, and opening replays the server's earlier
//! incarnations.
//!
//! - A batch is acknowledged only once its PUT (or the ambiguous-PUT token check) has
//!   succeeded: [`WalStreamWriter::append_framed`] returns `Ok`.
//! - Once a fencer owns an id the stream needed, every later batch fails with the engine's
//!   `Error::WalFenced` (not retryable on this process).
//! - Truncation only records the flushed point. Objects are never deleted here: that is
//!   the garbage collector's job, which must also keep every stream's newest object while
//!   its writer may live (the fencer's rule, `fencer.rs`).

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_engine::codec::WalEdit;
use strata_engine::{WalBackend, WalBackendOpener, WalBatch};

use crate::error::{Error, Result};
use crate::reader::{list_stream, replayable};
use crate::store::BlockingStore;
use crate::stream::{parse_incarnation, server_prefix, StreamId};
use crate::whole::{decode_object, fetch_objects};
use crate::writer::{WalStreamWriter, WriterDeps};

/// Opens the object WAL of one server incarnation (passed as
/// `EngineOptions::wal_backend`).
#[derive(Clone)]
pub struct ObjectWalOpener {
    store: BlockingStore,
    stream: StreamId,
    deps: WriterDeps,
    /// `None`: replay the server's earlier incarnations (one server restarting on the
    /// same store). `Some`: replay exactly these fenced streams (cluster mode, where a
    /// new owner replays the streams of servers that died).
    replay: Option<Vec<(StreamId, u64)>>,
    progress: Option<Arc<StreamProgress>>,
    ack_gate: Option<AckGate>,
}

/// Asked after every stored batch, before its writes are acknowledged: `Err(reason)`
/// refuses them (cluster mode: the server's lease deadline passed, so its regions may
/// already be someone else's).
pub type AckGate = Arc<dyn Fn() -> std::result::Result<(), String> + Send + Sync>;

impl std::fmt::Debug for ObjectWalOpener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectWalOpener")
            .field("store", &self.store)
            .field("stream", &self.stream)
            .field("replay", &self.replay)
            .field("ack_gate", &self.ack_gate.is_some())
            .finish()
    }
}

impl ObjectWalOpener {
    /// The WAL of `stream` in `store`. `stream.incarnation` must be new (above every
    /// incarnation of the server already in the store): the streams below it are replayed.
    pub fn new(store: BlockingStore, stream: StreamId, deps: WriterDeps) -> Self {
        ObjectWalOpener {
            store,
            stream,
            deps,
            replay: None,
            progress: None,
            ack_gate: None,
        }
    }

    /// Replays exactly `streams` (already fenced), each from the given object id, at open
    /// instead of the server's earlier incarnations.
    pub fn replaying(mut self, streams: Vec<(StreamId, u64)>) -> Self {
        self.replay = Some(streams);
        self
    }

    /// Reports the stream's first live object (everything below is flushed) to
    /// `progress`, so a new master can replay from there.
    pub fn with_progress(mut self, progress: Arc<StreamProgress>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Refuses to acknowledge a stored batch unless `gate` allows it.
    pub fn with_ack_gate(mut self, gate: AckGate) -> Self {
        self.ack_gate = Some(gate);
        self
    }

    fn open_stream(
        &self,
        on_edit: &mut dyn FnMut(WalEdit) -> strata_engine::Result<()>,
    ) -> strata_engine::Result<ObjectWal> {
        let earlier = self
            .earlier_incarnations()
            .map_err(Error::into_engine_error)?;
        let streams = match &self.replay {
            Some(streams) => streams.clone(),
            None => earlier
                .into_iter()
                .map(|incarnation| (StreamId::new(self.stream.server_id, incarnation), 0))
                .collect(),
        };
        for (stream, first_id) in streams {
            replay_stream(&self.store, stream, first_id, &self.deps, on_edit)?;
        }
        let writer = WalStreamWriter::new(self.store.clone(), self.stream, 0, self.deps.clone());
        Ok(ObjectWal {
            writer: Mutex::new(writer),
            live: Mutex::new(VecDeque::new()),
            progress: self.progress.clone().unwrap_or_default(),
            ack_gate: self.ack_gate.clone(),
        })
    }

    /// The server's incarnations in the store below ours, oldest first; refuses a stream
    /// that already holds objects (two processes must never share one).
    fn earlier_incarnations(&self) -> Result<BTreeSet<u64>> {
        let prefix = server_prefix(self.stream.server_id);
        let listing = self.deps.retry.run(|| self.store.list(&prefix))?;
        let found: BTreeSet<u64> = listing
            .iter()
            .filter_map(|meta| parse_incarnation(self.stream.server_id, &meta.location))
            .collect();
        if found.range(self.stream.incarnation..).next().is_some() {
            return Err(Error::InvalidArgument(format!(
                "{} already holds incarnation {} or a later one of server {}; take a new one",
                self.store.name(),
                self.stream.incarnation,
                self.stream.server_id
            )));
        }
        Ok(found)
    }
}

/// Replays every region's edits of `stream` up to its first fence, in object order (the
/// objects are fetched whole, many at a time: `whole.rs`).
pub fn replay_stream(
    store: &BlockingStore,
    stream: StreamId,
    first_id: u64,
    deps: &WriterDeps,
    on_edit: &mut dyn FnMut(WalEdit) -> strata_engine::Result<()>,
) -> strata_engine::Result<()> {
    let engine_error = Error::into_engine_error;
    let listed = list_stream(store, stream, &deps.retry).map_err(engine_error)?;
    let mut objects = replayable(&listed);
    objects.retain(|o| o.id >= first_id);
    let mut replayed = 0usize;
    // In chunks, so a long stream is never all in memory at once.
    for chunk in objects.chunks(REPLAY_CHUNK) {
        let bytes = fetch_objects(store, chunk, &deps.retry).map_err(engine_error)?;
        for (object, bytes) in chunk.iter().zip(&bytes) {
            for edit in decode_object(stream, object, bytes).map_err(engine_error)? {
                replayed += 1;
                on_edit(edit)?;
            }
        }
    }
    tracing::info!(%stream, objects = objects.len(), edits = replayed, "WAL stream replayed");
    Ok(())
}

/// Live objects counted as one local WAL segment by the flush policy: with its limit of
/// 32 segments, a stream keeps at most about 1,000 unflushed objects. A new owner reads a
/// dead server's stream whole before its regions serve again, 32 GETs in flight, and that
/// read is inside the 5 s failover budget after about 3 s of lease expiry and election: a
/// debug build read 1,859 objects in 0.86 s, so the former 4,000 (128 per unit) could
/// alone take 2 s, and master kills took up to 4.96 s once writes got faster.
pub const OBJECTS_PER_UNIT: u64 = 32;

/// Where a stream stands, for the cluster layer to publish: objects below `first_live_id`
/// hold only flushed edits; `next_id` is the next object to be written.
#[derive(Debug, Default)]
pub struct StreamProgress {
    pub first_live_id: AtomicU64,
    pub next_id: AtomicU64,
}

/// Objects fetched per round of a replay.
const REPLAY_CHUNK: usize = 256;

impl WalBackendOpener for ObjectWalOpener {
    fn open(
        &self,
        on_edit: &mut dyn FnMut(WalEdit) -> strata_engine::Result<()>,
    ) -> strata_engine::Result<Box<dyn WalBackend>> {
        Ok(Box::new(self.open_stream(on_edit)?))
    }
}

/// The backend: this incarnation's stream writer, one PUT in flight (the mutex; the group
/// commit already has one leader at a time).
pub struct ObjectWal {
    writer: Mutex<WalStreamWriter>,
    ack_gate: Option<AckGate>,
    /// The stored objects holding edits, oldest first, with their newest seq; the ones
    /// whose edits are all flushed are dropped from the front.
    live: Mutex<VecDeque<(u64, u64)>>,
    progress: Arc<StreamProgress>,
}

impl std::fmt::Debug for ObjectWal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectWal")
            .field("writer", &self.writer)
            .field("ack_gate", &self.ack_gate.is_some())
            .finish()
    }
}

impl WalBackend for ObjectWal {
    fn write_batch(&self, batch: &WalBatch<'_>) -> strata_engine::Result<()> {
        // A pure flush or sync request: every earlier batch is already a stored object.
        if batch.records.is_empty() {
            return Ok(());
        }
        let mut writer = self.writer.lock();
        let durable = writer
            .append_framed(batch.records)
            .map_err(Error::into_engine_error)?;
        {
            // The object joins `live` before `next_id` moves past it, both under the lock
            // `mark_flushed` reads them under: a flush finding `live` empty in between
            // would take `next_id` as the first live object and so publish this object,
            // unflushed, as one no replay needs: its acknowledged writes lost at a failover.
            let mut live = self.live.lock();
            if let Some(max_seq) = batch.max_seq {
                live.push_back((durable.object_id, max_seq));
            }
            self.progress
                .next_id
                .store(durable.object_id + 1, Ordering::Release);
        }
        // Stored, but the writers wait for this answer: past the lease deadline the
        // region may already be replayed elsewhere, so the outcome must stay "unknown".
        match &self.ack_gate {
            Some(gate) => gate().map_err(|reason| {
                strata_engine::Error::Closed(format!("write not acknowledged: {reason}"))
            }),
            None => Ok(()),
        }
    }

    fn mark_flushed(&self, min_unflushed_seq: u64) -> strata_engine::Result<usize> {
        let mut live = self.live.lock();
        let mut dropped = 0;
        while live
            .front()
            .is_some_and(|&(_, max_seq)| max_seq < min_unflushed_seq)
        {
            live.pop_front();
            dropped += 1;
        }
        let first_live = match live.front() {
            Some(&(id, _)) => id,
            None => self.progress.next_id.load(Ordering::Acquire),
        };
        self.progress
            .first_live_id
            .fetch_max(first_live, Ordering::AcqRel);
        Ok(dropped)
    }

    /// Objects still needed by a replay, in units of [`OBJECTS_PER_UNIT`]: the flush
    /// policy's segment limit then bounds a replay to a few thousand objects.
    fn live_units(&self) -> u64 {
        self.live.lock().len() as u64 / OBJECTS_PER_UNIT
    }

    fn close(&self) -> strata_engine::Result<()> {
        Ok(())
    }
}
