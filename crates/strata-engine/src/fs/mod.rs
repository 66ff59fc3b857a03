//! All file I/O goes through [`FileSystem`], so tests can inject faults and simulate crashes,
//! and so SSTables can later live on object storage.
//!
//! Contract, chosen so an object store can implement the SSTable side:
//! - SSTables are written once with `create` + `append` + `sync`, then only read with range
//!   reads (`read_at`). They are never modified, renamed or appended to after `sync`.
//! - Only the WAL and the manifest rely on append, sync, truncate or rename.
//!
//! Durability levels of a [`WritableFile`], which the crash simulation models separately:
//! - `append`: bytes sit in the process (lost on a process crash);
//! - `flush`: bytes are handed to the OS (survive a process crash, not a power loss);
//! - `sync`: bytes are durable (survive both).
//!
//! A newly created file's *name* is durable only after `sync_dir` on its parent directory.

use std::fmt::Debug;
use std::path::Path;
use std::sync::Arc;

use crate::error::Result;

pub mod fault;
pub mod health_fs;
pub mod local;
pub mod mem;
pub mod retaining;
pub mod volume;

pub use fault::{FaultFs, FaultKind, FaultOp, FaultRule, RuleId};
pub use local::LocalFs;
pub use mem::{CrashOptions, MemFs};
pub use retaining::RetainingFs;
pub use volume::{
    ByCategory, FileCategory, FirstVolume, Placement, PlacementPolicy, PolicyTypes, StoragePolicy,
    StorageType, TierSettings, TierSettingsMap, Tiered, Volume, VolumeHealth, VolumeHealthReport,
    Volumes,
};

/// A file being written sequentially.
pub trait WritableFile: Send + Sync {
    /// Appends bytes to the file (buffered in the process).
    fn append(&mut self, data: &[u8]) -> Result<()>;
    /// Hands every appended byte to the operating system.
    fn flush(&mut self) -> Result<()>;
    /// Makes every appended byte durable (implies `flush`).
    fn sync(&mut self) -> Result<()>;
    /// Bytes appended so far, durable or not.
    fn len(&self) -> u64;
    /// True when nothing was appended yet.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A file read with positioned range reads (pread, or an HTTP range GET).
pub trait RandomAccessFile: Send + Sync {
    /// Reads exactly `len` bytes at `offset`; a short file is an error.
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>>;
    /// The file's length in bytes.
    fn len(&self) -> u64;
    /// True for an empty file.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The filesystem operations the engine uses. Paths are absolute or relative to the process's
/// working directory for [`LocalFs`], and plain keys for [`MemFs`].
pub trait FileSystem: Send + Sync + Debug {
    /// Creates (or truncates) a file for writing. Parent directories must exist.
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>>;
    /// Creates a file that must not exist yet: an error of `std::io::ErrorKind::AlreadyExists`
    /// if it does. On shared storage (an object store) the check and the write are one
    /// atomic create-if-absent; this default checks first, which suffices for one process.
    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        if self.exists(path)? {
            let exists = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
            return Err(crate::error::Error::io(path, exists));
        }
        self.create(path)
    }
    /// Opens an existing file for range reads.
    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>>;
    /// Reads a whole file.
    fn read_all(&self, path: &Path) -> Result<Vec<u8>> {
        let file = self.open_read(path)?;
        let len = usize::try_from(file.len()).unwrap_or(usize::MAX);
        file.read_at(0, len)
    }
    /// Deletes a file.
    fn remove(&self, path: &Path) -> Result<()>;
    /// Atomically renames a file (manifest and WAL only).
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// Gives the file at `from` a second name `to` on the same volume (a snapshot's hold on
    /// an SSTable: deleting either name leaves the other). Filesystems without hard links
    /// (object stores) refuse it.
    fn hard_link(&self, from: &Path, _to: &Path) -> Result<()> {
        Err(crate::error::Error::InvalidArgument(format!(
            "{} cannot be hard-linked: this storage has no hard links",
            from.display()
        )))
    }
    /// Cuts a file down to `len` bytes and makes that durable (WAL torn-tail repair only).
    fn truncate(&self, path: &Path, len: u64) -> Result<()>;
    /// Names (not paths) of the entries in `dir`, sorted. A missing directory is an empty list.
    fn list(&self, dir: &Path) -> Result<Vec<String>>;
    /// Creates a directory and its parents.
    fn create_dir_all(&self, dir: &Path) -> Result<()>;
    /// Removes a directory and everything below it. A missing directory is not an error.
    fn remove_dir_all(&self, dir: &Path) -> Result<()>;
    /// Makes the directory's entries (creations, removals, renames) durable.
    fn sync_dir(&self, dir: &Path) -> Result<()>;
    /// True if the file or directory exists.
    fn exists(&self, path: &Path) -> Result<bool>;
    /// A file's length in bytes.
    fn file_size(&self, path: &Path) -> Result<u64>;
    /// On shared storage, the engine is done with `path` (a file or a directory) but may
    /// not delete it (`RetainingFs`): drop whatever local copy this filesystem keeps of
    /// it, so local disk holds only live files. The shared object stays for the collector.
    fn evict_local_copy(&self, _path: &Path) -> Result<()> {
        Ok(())
    }
    /// Free bytes on the volume holding `path`, if the filesystem can tell.
    fn free_space(&self, _path: &Path) -> Option<u64> {
        None
    }
}
