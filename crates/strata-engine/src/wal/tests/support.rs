//! Test-local filesystem wrapper (counts flushes and syncs, fails on demand) and helpers.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, RngCore};

use crate::cell::{Cell, CellType};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, LocalFs, RandomAccessFile, WritableFile};
use crate::options::WalOptions;
use crate::wal::format::segment_file_name;
use crate::wal::{Wal, WalEdit};

/// Switches and counters shared by a [`TestFs`] and every file it created.
#[derive(Debug, Default)]
pub struct Control {
    pub flushes: AtomicU64,
    pub syncs: AtomicU64,
    /// `append`, `flush` and `sync` fail without touching the file.
    pub fail_writes: AtomicBool,
    /// `append` writes the first half of its bytes to the OS, then fails (a torn write).
    pub tear_appends: AtomicBool,
    /// Only `sync` fails.
    pub fail_syncs: AtomicBool,
    /// `create` fails.
    pub fail_creates: AtomicBool,
    /// Every sync sleeps this many microseconds (makes group commit observable).
    pub sync_delay_micros: AtomicU64,
}

fn injected(what: &str) -> Error {
    Error::io(what, std::io::Error::other("injected failure"))
}

/// `LocalFs` with counters and failure switches on its writable files.
#[derive(Debug, Default, Clone)]
pub struct TestFs {
    pub ctl: Arc<Control>,
}

struct TestFile {
    inner: Box<dyn WritableFile>,
    ctl: Arc<Control>,
}

impl WritableFile for TestFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if self.ctl.fail_writes.load(Ordering::SeqCst) {
            return Err(injected("append"));
        }
        if self.ctl.tear_appends.load(Ordering::SeqCst) {
            self.inner.append(&data[..data.len() / 2])?;
            self.inner.flush()?;
            return Err(injected("torn append"));
        }
        self.inner.append(data)
    }

    fn flush(&mut self) -> Result<()> {
        if self.ctl.fail_writes.load(Ordering::SeqCst) {
            return Err(injected("flush"));
        }
        self.ctl.flushes.fetch_add(1, Ordering::SeqCst);
        self.inner.flush()
    }

    fn sync(&mut self) -> Result<()> {
        if self.ctl.fail_writes.load(Ordering::SeqCst) || self.ctl.fail_syncs.load(Ordering::SeqCst)
        {
            return Err(injected("sync"));
        }
        let delay = self.ctl.sync_delay_micros.load(Ordering::SeqCst);
        crate::util::clock::system().sleep(Duration::from_micros(delay));
        self.ctl.syncs.fetch_add(1, Ordering::SeqCst);
        self.inner.sync()
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl FileSystem for TestFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        if self.ctl.fail_creates.load(Ordering::SeqCst) {
            return Err(injected("create"));
        }
        let inner = LocalFs.create(path)?;
        Ok(Box::new(TestFile {
            inner,
            ctl: Arc::clone(&self.ctl),
        }))
    }
    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        LocalFs.open_read(path)
    }
    fn remove(&self, path: &Path) -> Result<()> {
        LocalFs.remove(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        LocalFs.rename(from, to)
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        LocalFs.truncate(path, len)
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        LocalFs.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        LocalFs.create_dir_all(dir)
    }
    fn remove_dir_all(&self, dir: &Path) -> Result<()> {
        LocalFs.remove_dir_all(dir)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        LocalFs.sync_dir(dir)
    }
    fn exists(&self, path: &Path) -> Result<bool> {
        LocalFs.exists(path)
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        LocalFs.file_size(path)
    }
}

/// Options with a small segment size and a long async interval (tests flush explicitly).
pub fn opts(segment_size: u64) -> WalOptions {
    WalOptions {
        segment_size,
        async_flush_interval: Duration::from_secs(3600),
        ..WalOptions::default()
    }
}

/// Opens the WAL and collects the replayed edits.
pub fn open(
    fs: Arc<dyn FileSystem>,
    dir: &Path,
    opts: WalOptions,
) -> Result<(Arc<Wal>, Vec<WalEdit>)> {
    let mut replayed = Vec::new();
    let wal = Wal::open(
        fs,
        crate::util::clock::system(),
        dir.to_path_buf(),
        opts,
        &mut |e| {
            replayed.push(e);
            Ok(())
        },
    )?;
    Ok((wal, replayed))
}

/// Replays `dir` and closes the WAL again.
pub fn replay(fs: Arc<dyn FileSystem>, dir: &Path) -> Result<Vec<WalEdit>> {
    let (wal, edits) = open(fs, dir, opts(1 << 20))?;
    wal.close()?;
    Ok(edits)
}

/// What a decode returns for `edit`: every cell's seq is the edit's.
pub fn as_replayed(edit: &WalEdit) -> WalEdit {
    let mut e = edit.clone();
    e.cells.iter_mut().for_each(|c| c.seq = edit.seq);
    e
}

pub fn segment_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(segment_file_name(number))
}

/// Segment numbers present in `dir`.
pub fn segment_numbers(dir: &Path) -> Vec<u64> {
    LocalFs
        .list(dir)
        .unwrap()
        .iter()
        .filter_map(|n| crate::wal::format::parse_segment_file_name(n))
        .collect()
}

/// A one-cell put edit.
pub fn simple_edit(region_id: u64, seq: u64) -> WalEdit {
    let value = format!("value-{seq}");
    WalEdit::new(
        region_id,
        seq,
        vec![Cell::put(
            format!("row-{seq}"),
            "cf",
            "q",
            seq as i64,
            value,
        )],
    )
}

fn random_bytes(rng: &mut SmallRng, max_len: usize) -> Bytes {
    let len = rng.random_range(0..=max_len);
    let mut buf = vec![0u8; len];
    rng.fill_bytes(&mut buf);
    Bytes::from(buf)
}

/// A random edit: up to 5 cells of every type, empty and (sometimes) large values.
pub fn random_edit(rng: &mut SmallRng, region_id: u64, seq: u64) -> WalEdit {
    const TYPES: [CellType; 5] = [
        CellType::Put,
        CellType::Delete,
        CellType::DeleteFamilyVersion,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
    ];
    let cells = (0..rng.random_range(1..=5))
        .map(|_| {
            let value_max = if rng.random_bool(0.05) { 20_000 } else { 40 };
            Cell {
                row: random_bytes(rng, 24),
                family: random_bytes(rng, 4),
                qualifier: random_bytes(rng, 12),
                timestamp: rng.random_range(0..=i64::MAX),
                cell_type: TYPES[rng.random_range(0..TYPES.len())],
                seq: 0,
                value: random_bytes(rng, value_max),
            }
        })
        .collect();
    WalEdit::new(region_id, seq, cells)
}
