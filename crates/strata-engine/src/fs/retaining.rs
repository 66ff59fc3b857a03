//! [`RetainingFs`]: a filesystem on which the engine deletes nothing.
//!
//! On shared storage (cluster mode) a file the engine thinks it is done with may still be
//! needed: a region that moved away may be read by its new owner from the very files this
//! process compacted, a zombie must not destroy what its successor serves, and a reader
//! elsewhere may hold an old manifest's files. Only a garbage collector that sees every
//! manifest pointer and reader may delete there. The engine wraps its filesystem in this
//! type when it runs with manifest pointers, so that rule holds in one place rather than
//! at every call site that deletes on a local disk.

use std::path::Path;
use std::sync::Arc;

use super::{FileSystem, RandomAccessFile, WritableFile};
use crate::error::Result;

/// Delegates everything to the inner filesystem except deletion, which it skips.
#[derive(Debug)]
pub struct RetainingFs {
    inner: Arc<dyn FileSystem>,
}

impl RetainingFs {
    /// `inner`, with deletions left to a collector.
    pub fn new(inner: Arc<dyn FileSystem>) -> Self {
        RetainingFs { inner }
    }
}

impl FileSystem for RetainingFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.inner.create(path)
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.inner.create_new(path)
    }
    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.inner.open_read(path)
    }
    fn remove(&self, path: &Path) -> Result<()> {
        tracing::debug!(path = %path.display(), "not deleting on shared storage; left for the collector");
        self.inner.evict_local_copy(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.rename(from, to)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.hard_link(from, to)
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        self.inner.truncate(path, len)
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        self.inner.create_dir_all(dir)
    }
    fn remove_dir_all(&self, dir: &Path) -> Result<()> {
        tracing::debug!(dir = %dir.display(), "not deleting on shared storage; left for the collector");
        self.inner.evict_local_copy(dir)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        self.inner.sync_dir(dir)
    }
    fn exists(&self, path: &Path) -> Result<bool> {
        self.inner.exists(path)
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        self.inner.file_size(path)
    }
    fn free_space(&self, path: &Path) -> Option<u64> {
        self.inner.free_space(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;

    #[test]
    fn deletes_nothing_and_passes_everything_else_through() {
        let mem: Arc<dyn FileSystem> = Arc::new(MemFs::new());
        let fs = RetainingFs::new(Arc::clone(&mem));
        fs.create_dir_all(Path::new("d")).unwrap();
        let mut file = fs.create(Path::new("d/a")).unwrap();
        file.append(b"abc").unwrap();
        file.sync().unwrap();
        drop(file);
        fs.remove(Path::new("d/a")).unwrap();
        fs.remove_dir_all(Path::new("d")).unwrap();
        assert_eq!(mem.read_all(Path::new("d/a")).unwrap(), b"abc");
        assert_eq!(fs.list(Path::new("d")).unwrap(), vec!["a".to_string()]);
        assert_eq!(fs.file_size(Path::new("d/a")).unwrap(), 3);
    }
}
