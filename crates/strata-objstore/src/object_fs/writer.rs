//! Writing one object: bytes are spooled (to a local file when the filesystem has a cache
//! directory, else in memory) and stored by `sync`, the only point an object store makes
//! anything durable. After that the object is immutable: SSTables and manifests are
//! written once, which is the engine's contract for them (`strata_engine::fs`).

use std::path::{Path, PathBuf};

use bytes::Bytes;
use object_store::path::Path as ObjectPath;
use strata_engine::fs::WritableFile;
use strata_engine::{Error, Result};

use super::ObjectFsInner;
use crate::store::CreateOutcome;

/// Objects up to this size go in one PUT; larger ones (big compaction outputs) are
/// uploaded in parts of this size, so memory stays bounded.
pub(super) const SINGLE_PUT_LIMIT: u64 = 16 << 20;

/// How the object is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CreateMode {
    /// Create-if-absent (manifest candidates): taken is an `AlreadyExists` error.
    New,
    /// Replace whatever is there; for names only this writer uses (tagged SSTables).
    Overwrite,
}

/// Where appended bytes wait for `sync`.
enum Spool {
    Memory(Vec<u8>),
    /// A local file `<cache path>.spool`, renamed to the cache path once stored.
    File {
        file: Box<dyn WritableFile>,
        spool: PathBuf,
        cached: PathBuf,
    },
}

/// A file being written to the object store.
pub(super) struct ObjectWritable {
    inner: ObjectFsInner,
    key: ObjectPath,
    mode: CreateMode,
    spool: Spool,
    len: u64,
    /// Set once the object is stored; later appends are refused.
    stored: bool,
}

impl ObjectWritable {
    pub(super) fn new(inner: ObjectFsInner, key: ObjectPath, mode: CreateMode) -> Result<Self> {
        let spool = match inner.cache_path(&key) {
            None => Spool::Memory(Vec::new()),
            Some(cached) => {
                let spool = cached.with_extension("spool");
                if let Some(parent) = spool.parent() {
                    inner.local.create_dir_all(parent)?;
                }
                let file = inner.local.create(&spool)?;
                Spool::File {
                    file,
                    spool,
                    cached,
                }
            }
        };
        Ok(ObjectWritable {
            inner,
            key,
            mode,
            spool,
            len: 0,
            stored: false,
        })
    }

    fn store(&mut self) -> Result<()> {
        match &mut self.spool {
            Spool::Memory(bytes) => {
                let bytes = Bytes::from(std::mem::take(bytes));
                self.inner.put_bytes(&self.key, bytes, self.mode)
            }
            Spool::File {
                file,
                spool,
                cached,
            } => {
                file.flush()?;
                self.inner.put_file(&self.key, spool, self.len, self.mode)?;
                // The local copy now mirrors a stored object: reads may use it. It is a
                // cache, so it needs no sync: a lost copy is read from the store again.
                self.inner.local.rename(spool, cached)
            }
        }
    }
}

impl WritableFile for ObjectWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if self.stored {
            return Err(Error::InvalidArgument(format!(
                "{} is already stored; objects are written once",
                self.key
            )));
        }
        match &mut self.spool {
            Spool::Memory(bytes) => bytes.extend_from_slice(data),
            Spool::File { file, .. } => file.append(data)?,
        }
        self.len += data.len() as u64;
        Ok(())
    }

    /// Nothing reaches the store before `sync`; an object has no partial state.
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        if self.stored {
            return Ok(());
        }
        self.store()?;
        self.stored = true;
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl ObjectFsInner {
    /// Stores `bytes` at `key`, retrying what may pass. A create that finds the key taken
    /// after an attempt whose outcome was unknown reads the object back: our own bytes
    /// mean our earlier attempt landed.
    pub(super) fn put_bytes(&self, key: &ObjectPath, bytes: Bytes, mode: CreateMode) -> Result<()> {
        let mut attempts = 0;
        let outcome = self.retry.run(|| {
            attempts += 1;
            match mode {
                CreateMode::Overwrite => self
                    .store
                    .put_overwrite(key, bytes.clone())
                    .map(|()| CreateOutcome::Created),
                CreateMode::New => self.store.put_create(key, bytes.clone()),
            }
        });
        match outcome.map_err(crate::Error::into_engine_error)? {
            CreateOutcome::Created => Ok(()),
            CreateOutcome::AlreadyExists if attempts > 1 && self.holds(key, &bytes)? => Ok(()),
            CreateOutcome::AlreadyExists => Err(Error::io(
                key.as_ref(),
                std::io::Error::from(std::io::ErrorKind::AlreadyExists),
            )),
        }
    }

    /// Stores the spooled file: one PUT up to [`SINGLE_PUT_LIMIT`], else a multipart
    /// upload (only for overwritable names: multipart cannot be create-if-absent).
    fn put_file(&self, key: &ObjectPath, spool: &Path, len: u64, mode: CreateMode) -> Result<()> {
        if len <= SINGLE_PUT_LIMIT || mode == CreateMode::New {
            let bytes = self.local.read_all(spool)?;
            return self.put_bytes(key, Bytes::from(bytes), mode);
        }
        let part = usize::try_from(SINGLE_PUT_LIMIT).unwrap_or(usize::MAX);
        let file = self.local.open_read(spool)?;
        self.retry
            .run(|| self.store.put_multipart_from(key, file.as_ref(), part))
            .map_err(crate::Error::into_engine_error)
    }

    fn holds(&self, key: &ObjectPath, bytes: &Bytes) -> Result<bool> {
        let len = bytes.len() as u64;
        let meta = self
            .retry
            .run(|| self.store.head(key))
            .map_err(crate::Error::into_engine_error)?;
        if meta.size != len {
            return Ok(false);
        }
        let stored = self
            .retry
            .run(|| self.store.get_range(key, 0..len))
            .map_err(crate::Error::into_engine_error)?;
        Ok(stored == *bytes)
    }
}
