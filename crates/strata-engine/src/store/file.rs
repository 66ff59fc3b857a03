//! A live SSTable of a store: its manifest entry and its open reader. An obsolete file (one
//! compacted away) is deleted only when the last reader holding it lets go, so a scan that
//! started before the compaction finishes on the files it began with. Until then it is in
//! the engine's [`HeldFiles`], which cluster mode publishes to its garbage collector.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::fs::FileSystem;
use crate::iter::KvIter;
use crate::manifest::StoreFileEntry;
use crate::read::bounded::BoundedIter;
use crate::table::TableReader;

use super::held::HeldFiles;

/// One SSTable in a store's live set.
pub struct StoreFile {
    pub entry: StoreFileEntry,
    pub reader: Arc<TableReader>,
    path: PathBuf,
    fs: Arc<dyn FileSystem>,
    held: HeldFiles,
    obsolete: AtomicBool,
    /// Set once the file was noted in `held` (so Drop takes it out exactly once).
    noted_held: AtomicBool,
}

impl StoreFile {
    /// Wraps an open reader.
    pub fn new(
        entry: StoreFileEntry,
        reader: Arc<TableReader>,
        path: PathBuf,
        fs: Arc<dyn FileSystem>,
        held: &HeldFiles,
    ) -> Arc<StoreFile> {
        Arc::new(StoreFile {
            entry,
            reader,
            path,
            fs,
            held: held.clone(),
            obsolete: AtomicBool::new(false),
            noted_held: AtomicBool::new(false),
        })
    }

    /// A cursor over the file; a reference shows only the rows of its range.
    pub fn iter(&self, fill_cache: bool) -> Box<dyn KvIter> {
        let inner = if fill_cache {
            self.reader.iter()
        } else {
            self.reader.iter_without_cache_fill()
        };
        match &self.entry.range {
            Some(range) => Box::new(BoundedIter::new(inner, range)),
            None => Box::new(inner),
        }
    }

    /// True for a reference to a file another region owns.
    pub fn is_reference(&self) -> bool {
        self.entry.range.is_some()
    }

    /// Marks the file for deletion once nothing references it. Call only after the manifest
    /// that drops it is durable. A reference is never deleted here: its owner's directory is
    /// removed as a whole once no region references it. Either way the file is held (in
    /// [`HeldFiles`]) until its last reader lets go.
    pub fn mark_obsolete(&self) {
        if !self.noted_held.swap(true, Ordering::AcqRel) {
            self.held.add(&self.path);
        }
        if !self.is_reference() {
            self.obsolete.store(true, Ordering::Release);
        }
    }
}

impl Drop for StoreFile {
    fn drop(&mut self) {
        if self.noted_held.load(Ordering::Acquire) {
            self.held.remove(&self.path);
        }
        if self.obsolete.load(Ordering::Acquire) {
            if let Err(e) = self.fs.remove(&self.path) {
                // A leftover file is harmless: it is not in the manifest, and the next open
                // removes unreferenced files.
                tracing::warn!(path = %self.path.display(), error = %e, "could not delete obsolete SSTable");
            }
        }
    }
}

impl std::fmt::Debug for StoreFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreFile")
            .field("path", &self.path)
            .finish()
    }
}
