//! [`ObjectFs`]: the engine's filesystem on an object store, for SSTables and manifests
//! in cluster mode (`docs/rfcs/0007-shared-storage-engine.md`).
//!
//! - A file is stored by its writer's `sync`, as one object (one PUT, or a multipart
//!   upload for a large SSTable); nothing is visible before.
//! - `create_new` is create-if-absent (`If-None-Match: *`), which manifest candidates use
//!   so that a zombie and the region's new owner can never overwrite each other's.
//! - Reads use a local copy when this process wrote the object and has a cache directory,
//!   else ranged GETs.
//! - Directories do not exist in an object store: creating or syncing one does nothing,
//!   and listing one lists the names under its prefix.
//! - `remove` really deletes (the garbage collector uses it); the engine itself never
//!   calls it on shared storage, where it wraps this in `RetainingFs`.
//! - `rename` and `truncate` serve only the local WAL and the local manifest's recovery,
//!   neither of which runs here; they are refused.

mod keys;
mod reader;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::path::Path as ObjectPath;
use strata_engine::fs::{FileSystem, LocalFs, RandomAccessFile, WritableFile};
use strata_engine::{Error, Result};

pub use keys::object_key;
use reader::RemoteFile;
use writer::{CreateMode, ObjectWritable};

use crate::retry::RetryPolicy;
use crate::store::BlockingStore;

/// The engine's [`FileSystem`] over an object store.
#[derive(Debug, Clone)]
pub struct ObjectFs {
    inner: ObjectFsInner,
}

/// What the writers and readers share.
#[derive(Debug, Clone)]
struct ObjectFsInner {
    store: BlockingStore,
    retry: RetryPolicy,
    /// Local copies of the objects this process wrote, under their keys; `None` spools
    /// writes in memory and reads everything from the store.
    cache_dir: Option<PathBuf>,
    /// The local filesystem holding `cache_dir`.
    local: Arc<dyn FileSystem>,
}

impl ObjectFsInner {
    fn cache_path(&self, key: &ObjectPath) -> Option<PathBuf> {
        self.cache_dir.as_ref().map(|dir| dir.join(key.as_ref()))
    }
}

impl ObjectFs {
    /// Files in `store`; `cache_dir` (a local directory) keeps copies of what this
    /// process writes, so its own flushes are read locally.
    pub fn new(store: BlockingStore, retry: RetryPolicy, cache_dir: Option<PathBuf>) -> Self {
        ObjectFs {
            inner: ObjectFsInner {
                store,
                retry,
                cache_dir,
                local: Arc::new(LocalFs),
            },
        }
    }

    fn engine_error(e: crate::Error) -> Error {
        e.into_engine_error()
    }

    fn head_len(&self, key: &ObjectPath) -> Result<Option<u64>> {
        match self.inner.retry.run(|| self.inner.store.head(key)) {
            Ok(meta) => Ok(Some(meta.size)),
            Err(crate::Error::NotFound(_)) => Ok(None),
            Err(e) => Err(Self::engine_error(e)),
        }
    }

    fn local_copy(&self, key: &ObjectPath) -> Result<Option<PathBuf>> {
        match self.inner.cache_path(key) {
            Some(path) if self.inner.local.exists(&path)? => Ok(Some(path)),
            _ => Ok(None),
        }
    }

    fn unsupported(op: &str, path: &Path) -> Error {
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                format!("{op} is not supported on an object store"),
            ),
        )
    }
}

impl FileSystem for ObjectFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let key = object_key(path)?;
        let writer = ObjectWritable::new(self.inner.clone(), key, CreateMode::Overwrite)?;
        Ok(Box::new(writer))
    }

    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let key = object_key(path)?;
        let writer = ObjectWritable::new(self.inner.clone(), key, CreateMode::New)?;
        Ok(Box::new(writer))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let key = object_key(path)?;
        if let Some(local) = self.local_copy(&key)? {
            return self.inner.local.open_read(&local);
        }
        let len = self
            .head_len(&key)?
            .ok_or_else(|| Error::NotFound(format!("{key} in {}", self.inner.store.name())))?;
        Ok(Arc::new(RemoteFile {
            store: self.inner.store.clone(),
            retry: self.inner.retry.clone(),
            key,
            len,
        }))
    }

    fn remove(&self, path: &Path) -> Result<()> {
        let key = object_key(path)?;
        if let Some(local) = self.local_copy(&key)? {
            self.inner.local.remove(&local)?;
        }
        self.inner
            .retry
            .run(|| self.inner.store.delete(&key))
            .map_err(Self::engine_error)
    }

    fn rename(&self, from: &Path, _to: &Path) -> Result<()> {
        Err(Self::unsupported("rename", from))
    }

    fn truncate(&self, path: &Path, _len: u64) -> Result<()> {
        Err(Self::unsupported("truncate", path))
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let key = object_key(dir)?;
        let mut names = self
            .inner
            .retry
            .run(|| self.inner.store.list_children(&key))
            .map_err(Self::engine_error)?;
        // A spool that never got stored is not a file of the store.
        names.retain(|n| !n.ends_with(".spool"));
        Ok(names)
    }

    fn create_dir_all(&self, _dir: &Path) -> Result<()> {
        Ok(())
    }

    fn remove_dir_all(&self, dir: &Path) -> Result<()> {
        let key = object_key(dir)?;
        let objects = self
            .inner
            .retry
            .run(|| self.inner.store.list(&key))
            .map_err(Self::engine_error)?;
        for object in objects {
            self.inner
                .retry
                .run(|| self.inner.store.delete(&object.location))
                .map_err(Self::engine_error)?;
        }
        if let Some(local) = self.inner.cache_path(&key) {
            self.inner.local.remove_dir_all(&local)?;
        }
        Ok(())
    }

    /// The local copy of a file (or the copies under a directory) the engine is done
    /// with; the object itself stays for the collector.
    fn evict_local_copy(&self, path: &Path) -> Result<()> {
        let key = object_key(path)?;
        let Some(local) = self.inner.cache_path(&key) else {
            return Ok(());
        };
        if !self.inner.local.exists(&local)? {
            return Ok(());
        }
        // A file, or else a directory of copies.
        self.inner
            .local
            .remove(&local)
            .or_else(|_| self.inner.local.remove_dir_all(&local))
    }

    /// A PUT that returned is durable; there is no directory entry to sync.
    fn sync_dir(&self, _dir: &Path) -> Result<()> {
        Ok(())
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        let key = object_key(path)?;
        if self.head_len(&key)?.is_some() {
            return Ok(true);
        }
        Ok(!self.list(path)?.is_empty())
    }

    fn file_size(&self, path: &Path) -> Result<u64> {
        let key = object_key(path)?;
        if let Some(local) = self.local_copy(&key)? {
            return self.inner.local.file_size(&local);
        }
        self.head_len(&key)?
            .ok_or_else(|| Error::NotFound(format!("{key} in {}", self.inner.store.name())))
    }
}

#[cfg(test)]
mod tests;
