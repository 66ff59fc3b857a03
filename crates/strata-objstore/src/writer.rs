//! The WAL stream writer: one batch object per group commit, written create-only.
//!
//! Rules that make an acknowledgement safe:
//! - Every PUT is `PutMode::Create` at the next contiguous id, one PUT in flight (`&mut
//!   self`), so a stream has no holes and a fence object at id F blocks every id >= F.
//! - A failed request is retried with the *same* id and bytes. `AlreadyExists` is then
//!   resolved by reading the header back: our token means an earlier attempt landed (the
//!   response was lost); another token means a fencer owns the id, the stream is fenced
//!   and refuses every later write.
//! - A write whose outcome stays unknown after the retries fails, and is *never* reported
//!   durable. Its id and bytes are kept: the next append first puts them again, because
//!   using the id for other bytes could not tell our lost write from a fencer's.

use std::sync::Arc;

use bytes::Bytes;
use strata_runtime::clock::Clock;

use crate::error::{Error, Result};
use crate::format::{ObjectHeader, ObjectKind, WalObjectBuilder, HEADER_LEN};
use crate::retry::RetryPolicy;
use crate::store::{BlockingStore, CreateOutcome};
use crate::stream::StreamId;
use crate::token::{TokenSource, WriterToken};

/// What the writer (and the fencer) are given rather than reach for: tokens, time, retries.
#[derive(Debug, Clone)]
pub struct WriterDeps {
    pub tokens: Arc<dyn TokenSource>,
    pub clock: Arc<dyn Clock>,
    pub retry: RetryPolicy,
}

/// A stored batch: the caller may now acknowledge its writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Durable {
    pub object_id: u64,
    pub bytes: u64,
}

/// An object whose PUT has not been confirmed.
#[derive(Debug, Clone)]
struct PendingPut {
    id: u64,
    bytes: Bytes,
    token: WriterToken,
}

/// Writes one server incarnation's stream.
#[derive(Debug)]
pub struct WalStreamWriter {
    store: BlockingStore,
    stream: StreamId,
    next_id: u64,
    /// A write that failed with an unknown outcome; settled before anything else is written.
    unsettled: Option<PendingPut>,
    /// Set once a fencer owns an id this stream needed.
    fenced_at: Option<u64>,
    deps: WriterDeps,
}

impl WalStreamWriter {
    /// A writer of `stream` whose next object is `first_id` (0 for a new incarnation).
    pub fn new(store: BlockingStore, stream: StreamId, first_id: u64, deps: WriterDeps) -> Self {
        WalStreamWriter {
            store,
            stream,
            next_id: first_id,
            unsettled: None,
            fenced_at: None,
            deps,
        }
    }

    /// The stream written.
    pub fn stream(&self) -> StreamId {
        self.stream
    }

    /// The id the next batch will take.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// True once the stream has been fenced; every later append fails.
    pub fn is_fenced(&self) -> bool {
        self.fenced_at.is_some()
    }

    /// Stores `batch` as the stream's next object. `Ok` means the object is in the store
    /// and its writes may be acknowledged; any `Err` means they must not be.
    pub fn append(&mut self, batch: &WalObjectBuilder) -> Result<Durable> {
        self.refuse_if_fenced()?;
        if let Some(pending) = self.unsettled.take() {
            self.settle(pending)?;
        }
        let token = self.deps.tokens.next_token();
        let header = ObjectHeader {
            kind: ObjectKind::Batch,
            server_id: self.stream.server_id,
            incarnation: self.stream.incarnation,
            object_id: self.next_id,
            token,
            created_at_ms: self.deps.clock.now_millis(),
        };
        let bytes = batch.finish(&header);
        let durable = Durable {
            object_id: self.next_id,
            bytes: bytes.len() as u64,
        };
        self.settle(PendingPut {
            id: self.next_id,
            bytes,
            token,
        })?;
        Ok(durable)
    }

    /// Stores a group commit's batch bytes (the engine's framed WAL v1 records, regions
    /// mixed) as the next object, sectioned by region: the seam the engine's group commit
    /// leader calls in place of a segment write and sync.
    pub fn append_framed(&mut self, framed: &[u8]) -> Result<Durable> {
        let mut batch = WalObjectBuilder::new();
        batch.add_framed_records(framed)?;
        self.append(&batch)
    }

    fn refuse_if_fenced(&self) -> Result<()> {
        match self.fenced_at {
            Some(object_id) => Err(self.fenced(object_id)),
            None => Ok(()),
        }
    }

    fn fenced(&self, object_id: u64) -> Error {
        Error::Fenced {
            stream: format!("{} in {}", self.stream, self.store.name()),
            object_id,
        }
    }

    /// Puts `pending` until its outcome is known; advances the stream when it is ours.
    fn settle(&mut self, pending: PendingPut) -> Result<()> {
        match self.put_resolved(&pending) {
            Ok(()) => {
                self.next_id = pending.id + 1;
                Ok(())
            }
            Err(e) if e.is_fenced() => {
                tracing::warn!(stream = %self.stream, id = pending.id, "WAL stream fenced");
                self.fenced_at = Some(pending.id);
                Err(e)
            }
            Err(e) => {
                self.unsettled = Some(pending);
                Err(e)
            }
        }
    }

    fn put_resolved(&self, pending: &PendingPut) -> Result<()> {
        let path = self.stream.object_path(pending.id);
        let retry = &self.deps.retry;
        match retry.run(|| self.store.put_create(&path, pending.bytes.clone()))? {
            CreateOutcome::Created => Ok(()),
            CreateOutcome::AlreadyExists => {
                let head = retry.run(|| self.store.get_range(&path, 0..HEADER_LEN as u64))?;
                let header = ObjectHeader::decode(&head, path.as_ref())?;
                if header.token == pending.token && header.object_id == pending.id {
                    tracing::info!(%path, "ambiguous WAL PUT had landed; token matches");
                    Ok(())
                } else {
                    Err(self.fenced(pending.id))
                }
            }
        }
    }
}
