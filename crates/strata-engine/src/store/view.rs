//! An immutable snapshot of a store's sources. Readers clone the `Arc` and read without
//! locks; flushes and compactions build a new view and swap it in.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::file::StoreFile;
use crate::memstore::Memstore;

/// Source of [`StoreView::id`].
static NEXT_VIEW_ID: AtomicU64 = AtomicU64::new(1);

/// The sources of a store at one moment, newest first.
#[derive(Debug)]
pub struct StoreView {
    /// Unique in the process: every view swapped in gets a new one, so the row cache can
    /// tell whether an answer was read from the views a read has now.
    pub id: u64,
    /// Receives new writes.
    pub memstore: Arc<Memstore>,
    /// A memstore being flushed, still readable until its SSTable is live.
    pub snapshot: Option<Arc<Memstore>>,
    /// Live SSTables, newest first.
    pub files: Vec<Arc<StoreFile>>,
}

impl StoreView {
    /// An empty view over `files`.
    pub fn with_files(files: Vec<Arc<StoreFile>>) -> Self {
        StoreView {
            id: NEXT_VIEW_ID.fetch_add(1, Ordering::Relaxed),
            memstore: Memstore::new(),
            snapshot: None,
            files,
        }
    }

    /// A copy of this view under a new id, for a flush, compaction or move to change and
    /// swap in.
    pub fn successor(&self) -> StoreView {
        StoreView {
            id: NEXT_VIEW_ID.fetch_add(1, Ordering::Relaxed),
            memstore: Arc::clone(&self.memstore),
            snapshot: self.snapshot.clone(),
            files: self.files.clone(),
        }
    }

    /// Bytes held in memory by this view's memstores.
    pub fn memstore_bytes(&self) -> u64 {
        self.memstore.size() + self.snapshot.as_ref().map_or(0, |s| s.size())
    }

    /// Smallest unflushed sequence id, if anything is unflushed.
    pub fn min_unflushed_seq(&self) -> Option<u64> {
        let snap = self.snapshot.as_ref().and_then(|s| s.min_seq());
        match (snap, self.memstore.min_seq()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
