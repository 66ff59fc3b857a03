//! An in-memory [`FileSystem`] that models the three durability levels of `fs/mod.rs`, so
//! tests can take the disk a restarted process would find after a process crash or a power
//! cut, deterministically from a seed.

mod crash;
mod file;
mod state;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

pub use crash::CrashOptions;
use file::{MemReadable, MemWritable};
use state::{normalize, State};

use super::{FileSystem, RandomAccessFile, WritableFile};
use crate::error::Result;

/// An in-memory filesystem. Clones are handles to the same disk; the `crash_*` methods make
/// new, independent disks.
///
/// Paths are plain keys (normalized for `.` and doubled separators); `""` and `"/"` are roots
/// that always exist. Directory creation is durable at once; file creation, removal and
/// rename become durable only with `sync_dir` of the parent directory (rename: of both).
#[derive(Debug, Clone, Default)]
pub struct MemFs {
    state: Arc<Mutex<State>>,
}

impl MemFs {
    /// An empty disk with unlimited space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Limits the disk to `capacity` bytes (over all files' OS-level bytes): a flush that
    /// would pass it fails with `StorageFull`. `None` removes the limit.
    pub fn set_capacity(&self, capacity: Option<u64>) {
        self.state.lock().capacity = capacity;
    }

    /// Open writers and readers, to check that code closes what it opens.
    pub fn open_handles(&self) -> usize {
        self.state.lock().open_handles()
    }

    /// The disk as a process restarted after `kill -9` sees it: everything flushed and every
    /// current name survives, appended but unflushed bytes are lost. Handles still open on
    /// `self` keep writing into `self` only.
    pub fn crash_process(&self) -> MemFs {
        let state = crash::process_crash(&self.state.lock());
        MemFs {
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// The disk after a power cut, with torn writes ([`CrashOptions::default`]): see
    /// [`MemFs::crash_power_loss_with`].
    pub fn crash_power_loss(&self, seed: u64) -> MemFs {
        self.crash_power_loss_with(seed, CrashOptions::default())
    }

    /// The disk after a power cut: only dir-synced names exist (a removal that was never
    /// dir-synced is undone), each file holds its synced bytes, plus, as `opts` allows and
    /// the seeded RNG picks, a prefix of its unsynced tail and some garbage bytes.
    pub fn crash_power_loss_with(&self, seed: u64, opts: CrashOptions) -> MemFs {
        let state = crash::power_loss(&self.state.lock(), seed, opts);
        MemFs {
            state: Arc::new(Mutex::new(state)),
        }
    }
}

impl FileSystem for MemFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let path = normalize(path);
        let id = self.state.lock().create_file(&path)?;
        Ok(Box::new(MemWritable::open(self.state.clone(), path, id)))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let path = normalize(path);
        let id = self.state.lock().file_id(&path)?;
        Ok(Arc::new(MemReadable::open(self.state.clone(), path, id)?))
    }

    fn remove(&self, path: &Path) -> Result<()> {
        self.state.lock().remove_file(&normalize(path))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.state
            .lock()
            .rename_file(&normalize(from), &normalize(to))
    }

    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        self.state
            .lock()
            .link_file(&normalize(from), &normalize(to))
    }

    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        self.state.lock().truncate(&normalize(path), len)
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        self.state.lock().list(&normalize(dir))
    }

    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        self.state.lock().create_dir_all(&normalize(dir))
    }

    fn remove_dir_all(&self, dir: &Path) -> Result<()> {
        self.state.lock().remove_dir_all(&normalize(dir))
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        self.state.lock().sync_dir(&normalize(dir))
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        let path = normalize(path);
        let state = self.state.lock();
        Ok(state.is_dir(&path) || state.live.contains_key(&path))
    }

    fn file_size(&self, path: &Path) -> Result<u64> {
        let path = normalize(path);
        let state = self.state.lock();
        let id = state.file_id(&path)?;
        Ok(state.file(&path, id)?.os.len() as u64)
    }

    fn free_space(&self, _path: &Path) -> Option<u64> {
        let state = self.state.lock();
        let capacity = state.capacity?;
        Some(capacity.saturating_sub(state.used_bytes()))
    }
}
