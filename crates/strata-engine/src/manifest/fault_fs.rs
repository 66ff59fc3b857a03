//! A test [`FileSystem`] wrapper that fails chosen operations on demand.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::fs::{FileSystem, RandomAccessFile, WritableFile};

/// Operations that can be made to fail (bit flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Create = 1,
    /// Appends half the bytes, then fails: a torn write.
    Append = 2,
    Sync = 4,
    SyncDir = 8,
    Remove = 16,
}

pub const ALL_OPS: [Op; 5] = [Op::Create, Op::Append, Op::Sync, Op::SyncDir, Op::Remove];

#[derive(Debug)]
pub struct FaultFs {
    inner: Arc<dyn FileSystem>,
    failing: Arc<AtomicU32>,
}

impl FaultFs {
    pub fn new(inner: Arc<dyn FileSystem>) -> Self {
        FaultFs {
            inner,
            failing: Arc::new(AtomicU32::new(0)),
        }
    }

    /// Makes exactly the operations in `ops` fail from now on.
    pub fn fail(&self, ops: &[Op]) {
        let mask = ops.iter().fold(0, |m, op| m | *op as u32);
        self.failing.store(mask, Ordering::SeqCst);
    }

    fn check(failing: &AtomicU32, op: Op, path: &Path) -> Result<()> {
        if failing.load(Ordering::SeqCst) & op as u32 != 0 {
            let e = std::io::Error::other(format!("injected {op:?} failure"));
            return Err(Error::io(path, e));
        }
        Ok(())
    }
}

struct FaultWritable {
    inner: Box<dyn WritableFile>,
    failing: Arc<AtomicU32>,
    path: std::path::PathBuf,
}

impl WritableFile for FaultWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if let Err(e) = FaultFs::check(&self.failing, Op::Append, &self.path) {
            self.inner.append(&data[..data.len() / 2])?;
            self.inner.flush()?;
            return Err(e);
        }
        self.inner.append(data)
    }

    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }

    fn sync(&mut self) -> Result<()> {
        // A failed fsync still leaves the bytes with the OS, as on Linux.
        self.inner.flush()?;
        FaultFs::check(&self.failing, Op::Sync, &self.path)?;
        self.inner.sync()
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl FileSystem for FaultFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        Self::check(&self.failing, Op::Create, path)?;
        Ok(Box::new(FaultWritable {
            inner: self.inner.create(path)?,
            failing: Arc::clone(&self.failing),
            path: path.to_path_buf(),
        }))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.inner.open_read(path)
    }

    fn remove(&self, path: &Path) -> Result<()> {
        Self::check(&self.failing, Op::Remove, path)?;
        self.inner.remove(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.rename(from, to)
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
        self.inner.remove_dir_all(dir)
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        Self::check(&self.failing, Op::SyncDir, dir)?;
        self.inner.sync_dir(dir)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        self.inner.exists(path)
    }

    fn file_size(&self, path: &Path) -> Result<u64> {
        self.inner.file_size(path)
    }
}
