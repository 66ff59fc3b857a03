//! The small interface every system under test implements, so that the same workload code
//! drives Strata, RocksDB and the in-memory self-test target.

use std::path::PathBuf;

use crate::error::BenchResult;

/// How durable each write must be before `put` returns.
///
/// The names follow HBase's `Durability`. What each target does for them is documented in
/// `docs/performance.md` ("Engine: Strata vs RocksDB"); in short, RocksDB has no timed WAL flush, so both `Async`
/// and `Sync` map to "WAL on, `sync = false`" (the record is handed to the OS on every write).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DurabilityMode {
    /// No write-ahead log at all.
    Skip,
    /// WAL appended in memory and flushed to the OS in the background.
    Async,
    /// WAL handed to the OS before the write returns (survives a process crash).
    #[default]
    Sync,
    /// WAL fsynced before the write returns (survives a power loss).
    Fsync,
}

impl DurabilityMode {
    /// The flag spelling, used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DurabilityMode::Skip => "skip",
            DurabilityMode::Async => "async",
            DurabilityMode::Sync => "sync",
            DurabilityMode::Fsync => "fsync",
        }
    }
}

/// Whether data blocks are cached in the process.
///
/// "Uncached" means the data-block cache is turned off (not merely small): every point read
/// reads and decodes its data block again, normally from the OS page cache. Index and bloom
/// blocks stay in memory in both systems, as they do by default in RocksDB's table reader and
/// in HBase with `BLOCKCACHE => false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    /// A block cache of this many bytes.
    Enabled(usize),
    /// No data-block cache.
    Disabled,
}

/// What a target needs to open (or reopen) its database.
#[derive(Debug, Clone)]
pub struct OpenSpec {
    /// The database directory; the harness creates and removes it.
    pub dir: PathBuf,
    pub cache: CacheMode,
    pub durability: DurabilityMode,
    /// Data block size in bytes for both systems; `None` keeps each system's default
    /// (64 KiB in Strata, as in HBase; 4 KiB in RocksDB).
    pub block_size: Option<usize>,
}

/// One open database under test. Shared by all worker threads of a phase.
pub trait KvTarget: Send + Sync {
    /// Writes one key.
    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()>;
    /// Reads one key and returns the length of its value if it exists. Returning the length
    /// rather than the bytes lets a target avoid a copy it would not otherwise make.
    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>>;
    /// Positions at the first key at or after `start` and reads up to `n` rows; returns the
    /// number of rows read.
    fn scan(&self, start: &[u8], n: usize) -> BenchResult<usize>;
    /// Persists everything written so far to the table files (a memtable flush).
    fn flush(&self) -> BenchResult<()>;
    /// Releases the database; called before a reopen and at the end.
    fn close(self: Box<Self>) -> BenchResult<()>;
}

/// A storage system that can open databases: the harness opens, reopens and destroys them
/// between phases.
pub trait Backend: Send + Sync {
    /// The system's name in reports ("strata", "rocksdb", ...).
    fn name(&self) -> String;
    /// Opens the database in `spec.dir`, creating it if it is missing.
    fn open(&self, spec: &OpenSpec) -> BenchResult<Box<dyn KvTarget>>;
}
