//! A store's part in splits and merges: freezing its file set while new regions take
//! references to it, and building those references.

use std::sync::atomic::Ordering;

use super::Store;
use crate::error::{Error, Result};
use crate::manifest::{RowRange, StoreFileEntry};

impl Store {
    /// Stops compactions (waiting for a running one) so the file set stays as it is.
    pub(crate) fn freeze(&self) {
        self.frozen.store(true, Ordering::Release);
        // A compaction that started before the flag holds the lock; wait for it to install
        // its output, after which the view is final.
        drop(self.compaction_lock.lock());
    }

    /// Lets compactions run again (a split or merge that failed).
    pub(crate) fn unfreeze(&self) {
        self.frozen.store(false, Ordering::Release);
    }

    pub(super) fn is_frozen(&self) -> bool {
        self.frozen.load(Ordering::Acquire)
    }

    /// True if some live file is a reference to another region's file.
    pub fn has_references(&self) -> bool {
        self.view().files.iter().any(|f| f.is_reference())
    }

    /// Manifest entries that reference this store's files restricted to `range`, oldest
    /// first. The store must be flushed and frozen: anything still in memory would be lost.
    /// References of references point at the owner's file directly, with the ranges
    /// intersected, so chains never form.
    pub(crate) fn reference_entries(&self, range: &RowRange) -> Result<Vec<StoreFileEntry>> {
        let view = self.view();
        if !view.memstore.is_empty() || view.snapshot.is_some() {
            return Err(Error::InvalidArgument(
                "a store must be flushed before it is referenced".into(),
            ));
        }
        let mut out = Vec::new();
        for file in view.files.iter().rev() {
            let own = file.entry.range.clone().unwrap_or_else(RowRange::all);
            if let Some(restricted) = own.intersect(range) {
                let mut entry = file.entry.clone();
                entry.range = Some(restricted);
                out.push(entry);
            }
        }
        Ok(out)
    }

    /// The region-directory prefixes (relative paths) of the files this store references.
    pub fn referenced_paths(&self) -> Vec<String> {
        self.view()
            .files
            .iter()
            .filter(|f| f.is_reference())
            .map(|f| f.entry.relative_path.clone())
            .collect()
    }

    /// Bytes of this store's own files (references excluded: their size is the parent's).
    pub fn own_file_bytes(&self) -> u64 {
        self.view()
            .files
            .iter()
            .filter(|f| !f.is_reference())
            .map(|f| f.entry.size)
            .sum()
    }
}

impl Store {
    /// A row near the middle of the store's largest file (within the file's range for a
    /// reference), from the file's index; `None` without files.
    pub fn mid_row(&self) -> Option<Vec<u8>> {
        let view = self.view();
        let file = view.files.iter().max_by_key(|f| f.entry.size)?;
        let range = file.entry.range.clone().unwrap_or_else(RowRange::all);
        let rows: Vec<Vec<u8>> = file
            .reader
            .block_last_keys()
            .into_iter()
            .filter_map(|k| crate::key::parse_key(k).map(|k| k.row))
            .filter(|row| range.contains(row))
            .collect();
        rows.get(rows.len() / 2).cloned()
    }
}
