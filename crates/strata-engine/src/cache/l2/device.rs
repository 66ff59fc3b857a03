//! The cache file and its index file on the local device.
//!
//! This is the one place the engine writes into the middle of a file, which the
//! `fs::FileSystem` seam does not model (its files are appended once and then only read),
//! so it uses `std::fs` directly: the cache lives on a local SSD or tmpfs by definition,
//! never on a volume the seam redirects, and every failure here is handled as a miss or a
//! discarded cache, never as lost data.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The preallocated cache file, read and written at offsets.
#[derive(Debug)]
pub struct Device {
    file: File,
    path: PathBuf,
}

impl Device {
    /// Opens (creating if needed) the cache file at `path`.
    #[allow(clippy::disallowed_methods)] // see the module comment
    pub fn open(path: &Path) -> Result<Device> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        Ok(Device {
            file,
            path: path.to_path_buf(),
        })
    }

    pub fn len(&self) -> Result<u64> {
        let meta = self.file.metadata().map_err(|e| self.err(e))?;
        Ok(meta.len())
    }

    /// Empties the file and sizes it to `len` bytes of zeros (sparse where the filesystem
    /// allows: the space is taken as entries are written).
    pub fn reset(&self, len: u64) -> Result<()> {
        self.file.set_len(0).map_err(|e| self.err(e))?;
        self.file.set_len(len).map_err(|e| self.err(e))
    }

    /// Exactly `len` bytes at `pos`.
    pub fn read_at(&self, pos: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        self.file
            .read_exact_at(&mut buf, pos)
            .map_err(|e| self.err(e))?;
        Ok(buf)
    }

    pub fn write_at(&self, pos: u64, bytes: &[u8]) -> Result<()> {
        self.file.write_all_at(bytes, pos).map_err(|e| self.err(e))
    }

    pub fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| self.err(e))
    }

    fn err(&self, e: std::io::Error) -> Error {
        Error::io(&self.path, e)
    }
}

/// The whole file at `path`, or `None` if there is none.
pub fn read_file(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Removes `path` if it exists.
#[allow(clippy::disallowed_methods)] // see the module comment
pub fn remove_file(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Writes `bytes` to `path` through a synced temporary file renamed over it, so `path`
/// holds either the old bytes or all of the new ones; the directory is synced after the
/// rename, so the new name survives a power cut that follows.
#[allow(clippy::disallowed_methods)] // see the module comment
pub fn write_file_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()
    };
    write().map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

/// Creates `dir` and its parents.
pub fn create_dir_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))
}
