//! The real filesystem, through `std::fs`. This is the only module allowed to touch it.
#![allow(clippy::disallowed_methods)]

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};

/// `std::fs` behind the [`FileSystem`] trait.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalFs;

/// Appended bytes are buffered in the process until `flush` (one write syscall per flush,
/// which is what makes WAL group commit cheap).
struct LocalWritable {
    path: PathBuf,
    file: File,
    buffer: Vec<u8>,
    len: u64,
}

impl WritableFile for LocalWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.buffer.extend_from_slice(data);
        self.len += data.len() as u64;
        if self.buffer.len() >= 1 << 20 {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.buffer.is_empty() {
            self.file
                .write_all(&self.buffer)
                .map_err(|e| Error::io(&self.path, e))?;
            self.buffer.clear();
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.flush()?;
        self.file.sync_data().map_err(|e| Error::io(&self.path, e))
    }

    fn len(&self) -> u64 {
        self.len
    }
}

struct LocalReadable {
    path: PathBuf,
    file: File,
    len: u64,
}

impl RandomAccessFile for LocalReadable {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        self.file
            .read_exact_at(&mut buf, offset)
            .map_err(|e| Error::io(&self.path, e))?;
        Ok(buf)
    }

    fn len(&self) -> u64 {
        self.len
    }
}

/// Opens `path` for writing with `options` (create, or create only if absent).
fn writable(path: &Path, options: &OpenOptions) -> Result<Box<dyn WritableFile>> {
    let file = options.open(path).map_err(|e| Error::io(path, e))?;
    Ok(Box::new(LocalWritable {
        path: path.to_path_buf(),
        file,
        buffer: Vec::new(),
        len: 0,
    }))
}

impl FileSystem for LocalFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        writable(
            path,
            OpenOptions::new().write(true).create(true).truncate(true),
        )
    }

    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        writable(path, OpenOptions::new().write(true).create_new(true))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        Ok(Arc::new(LocalReadable {
            path: path.to_path_buf(),
            file,
            len,
        }))
    }

    fn remove(&self, path: &Path) -> Result<()> {
        fs::remove_file(path).map_err(|e| Error::io(path, e))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        fs::rename(from, to).map_err(|e| Error::io(from, e))
    }

    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        fs::hard_link(from, to).map_err(|e| Error::io(to, e))
    }

    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        file.set_len(len).map_err(|e| Error::io(path, e))?;
        file.sync_all().map_err(|e| Error::io(path, e))
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(dir, e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(dir, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))
    }

    fn remove_dir_all(&self, dir: &Path) -> Result<()> {
        match fs::remove_dir_all(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(dir, e)),
            _ => Ok(()),
        }
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let handle = File::open(dir).map_err(|e| Error::io(dir, e))?;
        handle.sync_all().map_err(|e| Error::io(dir, e))
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        path.try_exists().map_err(|e| Error::io(path, e))
    }

    fn file_size(&self, path: &Path) -> Result<u64> {
        Ok(fs::metadata(path).map_err(|e| Error::io(path, e))?.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_read_list_remove() {
        let dir = tempfile::tempdir().unwrap();
        let fs = LocalFs;
        let path = dir.path().join("a.bin");
        let mut w = fs.create(&path).unwrap();
        w.append(b"hello ").unwrap();
        w.append(b"world").unwrap();
        assert_eq!(w.len(), 11);
        w.sync().unwrap();
        let r = fs.open_read(&path).unwrap();
        assert_eq!(r.read_at(6, 5).unwrap(), b"world");
        assert!(r.read_at(8, 5).is_err(), "short read must be an error");
        assert_eq!(fs.list(dir.path()).unwrap(), vec!["a.bin".to_string()]);
        fs.truncate(&path, 5).unwrap();
        assert_eq!(fs.read_all(&path).unwrap(), b"hello");
        fs.remove(&path).unwrap();
        assert!(!fs.exists(&path).unwrap());
        assert!(fs.list(&dir.path().join("missing")).unwrap().is_empty());
    }
}
