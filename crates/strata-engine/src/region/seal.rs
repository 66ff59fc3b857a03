//! Sealing a region for a split or merge: its data is flushed to SSTables and then held
//! still (no writes, no compactions), so new regions can reference exactly its files.

use std::sync::atomic::Ordering;

use super::Region;
use crate::error::{Error, Result};

impl Region {
    /// Flushes, refuses further writes, flushes what arrived meanwhile, and stops
    /// compactions. Writes block only from the second flush on, which holds just the edits
    /// of the first flush's duration: milliseconds.
    pub fn seal(&self) -> Result<()> {
        self.flush()?;
        {
            // In-flight writes hold the lock shared until their cells are in the memstore.
            let _exclusive = self.updates.write();
            self.sealed.store(true, Ordering::Release);
        }
        for store in self.stores.values() {
            store.freeze();
        }
        if let Err(e) = self.flush() {
            self.unseal();
            return Err(e);
        }
        Ok(())
    }

    /// Undoes `seal` (a split or merge that failed before it committed).
    pub fn unseal(&self) {
        for store in self.stores.values() {
            store.unfreeze();
        }
        self.sealed.store(false, Ordering::Release);
    }

    /// True while the region refuses writes for a split or merge.
    pub fn is_sealed(&self) -> bool {
        self.sealed.load(Ordering::Acquire)
    }

    pub(super) fn check_not_sealed(&self) -> Result<()> {
        if self.is_sealed() {
            return Err(Error::RegionSealed { region: self.id });
        }
        Ok(())
    }

    /// A row near the middle of the region's data (of its largest store), for a split.
    pub fn mid_row(&self) -> Option<Vec<u8>> {
        self.stores
            .values()
            .max_by_key(|s| s.file_bytes())
            .and_then(|s| s.mid_row())
    }

    /// Bytes of the region's own SSTables and memstores: the size a split policy compares.
    pub fn size_bytes(&self) -> u64 {
        self.stores
            .values()
            .map(|s| s.own_file_bytes() + s.view().memstore_bytes())
            .sum()
    }

    /// True if some store still reads a parent's file (split or merge not yet compacted).
    pub fn has_references(&self) -> bool {
        self.stores.values().any(|s| s.has_references())
    }
}
