//! [`HeldFiles`]: the SSTables this process still reads although no current manifest of
//! its stores lists them any more (a compaction, flush or move replaced them while a scan
//! held the old file set).
//!
//! On a local disk such a file is unlinked when its last reader lets go, and open handles
//! keep its bytes. On shared storage the process deletes nothing, and a garbage collector
//! elsewhere decides what goes: it must not delete what a reader here still holds, so
//! cluster mode publishes this set (`Engine::held_obsolete_files`). A reference to another
//! region's file counts too, although it is never deleted here: the file it names may
//! otherwise lose its last live reference while a scan still reads it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

/// Paths of obsolete files with readers, each with how many [`crate::store::StoreFile`]s
/// hold it (two daughters of a split may both drop a reference to one parent file).
#[derive(Debug, Default, Clone)]
pub struct HeldFiles {
    paths: Arc<Mutex<HashMap<PathBuf, usize>>>,
}

impl HeldFiles {
    /// Notes that a file replaced in its manifest is still held.
    pub(crate) fn add(&self, path: &Path) {
        *self.paths.lock().entry(path.to_path_buf()).or_default() += 1;
    }

    /// Notes that the last reader of one holder of `path` let go.
    pub(crate) fn remove(&self, path: &Path) {
        let mut paths = self.paths.lock();
        if let Some(count) = paths.get_mut(path) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                paths.remove(path);
            }
        }
    }

    /// The held paths, sorted (so a caller can tell when the set changed).
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.paths.lock().keys().cloned().collect();
        paths.sort();
        paths
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_held_until_its_last_holder_lets_go() {
        let held = HeldFiles::default();
        let p = Path::new("data/regions/0000000000000001/cf/0000000000000001-s1i1.sst");
        held.add(p);
        held.add(p);
        held.remove(p);
        assert_eq!(held.paths(), vec![p.to_path_buf()]);
        held.remove(p);
        held.remove(p);
        assert!(held.paths().is_empty());
    }
}
