//! [`HealthFs`]: times every sync and notes every write error, per volume, for
//! [`VolumeHealth`]. The engine wraps its filesystem in it when it has more than one
//! volume, so placement can avoid a slow or failing one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::volume::VolumeHealth;
use super::{FileSystem, RandomAccessFile, WritableFile};
use crate::error::Result;

/// Delegates to `inner`, reporting each volume's sync times and errors to `health`.
#[derive(Debug)]
pub struct HealthFs {
    inner: Arc<dyn FileSystem>,
    /// Volume roots, in the order of `health`.
    roots: Vec<PathBuf>,
    health: Arc<VolumeHealth>,
}

impl HealthFs {
    /// Measures the volumes rooted at `roots` (in the order `health` knows them).
    pub fn new(inner: Arc<dyn FileSystem>, roots: Vec<PathBuf>, health: Arc<VolumeHealth>) -> Self {
        HealthFs {
            inner,
            roots,
            health,
        }
    }

    /// The volume holding `path`: the longest root it lies under.
    fn volume_of(&self, path: &Path) -> Option<usize> {
        self.roots
            .iter()
            .enumerate()
            .filter(|(_, root)| path.starts_with(root))
            .max_by_key(|(_, root)| root.as_os_str().len())
            .map(|(i, _)| i)
    }

    fn watched(
        &self,
        path: &Path,
        file: Result<Box<dyn WritableFile>>,
    ) -> Result<Box<dyn WritableFile>> {
        let volume = self.volume_of(path);
        match (file, volume) {
            (Ok(inner), Some(volume)) => Ok(Box::new(TimedWritable {
                inner,
                volume,
                health: Arc::clone(&self.health),
            })),
            (Ok(inner), None) => Ok(inner),
            (Err(e), Some(volume)) if !e.is_already_exists() => {
                self.health.record_error(volume, &e.to_string());
                Err(e)
            }
            (Err(e), _) => Err(e),
        }
    }
}

/// A file whose syncs are timed and whose errors are noted.
struct TimedWritable {
    inner: Box<dyn WritableFile>,
    volume: usize,
    health: Arc<VolumeHealth>,
}

impl TimedWritable {
    fn noted<T>(&self, result: Result<T>) -> Result<T> {
        if let Err(e) = &result {
            self.health.record_error(self.volume, &e.to_string());
        }
        result
    }
}

impl WritableFile for TimedWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let result = self.inner.append(data);
        self.noted(result)
    }
    fn flush(&mut self) -> Result<()> {
        let result = self.inner.flush();
        self.noted(result)
    }
    fn sync(&mut self) -> Result<()> {
        let clock = Arc::clone(self.health.clock());
        let started = clock.now();
        let result = self.inner.sync();
        if result.is_ok() {
            self.health.record_sync(self.volume, clock.elapsed(started));
        }
        self.noted(result)
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl FileSystem for HealthFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.watched(path, self.inner.create(path))
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.watched(path, self.inner.create_new(path))
    }
    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.inner.open_read(path)
    }
    fn remove(&self, path: &Path) -> Result<()> {
        self.inner.remove(path)
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
        self.inner.remove_dir_all(dir)
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
