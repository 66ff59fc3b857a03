//! The benchmark's flags, shared by `strata bench engine` and the RocksDB side-by-side binary
//! so that both accept exactly the same options.

use std::path::PathBuf;

use crate::error::{BenchError, BenchResult};
use crate::keys::MAX_KEYS;
use crate::target::DurabilityMode;

/// One benchmark phase, with db_bench's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Workload {
    /// Writes keys 0..num in order into a fresh database.
    Fillseq,
    /// Writes `num` uniformly random keys (with replacement) into a fresh database.
    Fillrandom,
    /// Writes `num` uniformly random keys over the existing database.
    Overwrite,
    /// Reads `reads` uniformly random keys of the key space; reports the found ratio.
    Readrandom,
    /// `readrandom` after a reopen with the data-block cache turned off.
    ReadrandomUncached,
    /// Seeks to `seeks` random keys and reads `seek-nexts` rows from each.
    Seekrandom,
}

impl Workload {
    /// Every workload, in the order of the standard matrix.
    pub const ALL: [Workload; 6] = [
        Workload::Fillseq,
        Workload::Fillrandom,
        Workload::Overwrite,
        Workload::Readrandom,
        Workload::ReadrandomUncached,
        Workload::Seekrandom,
    ];

    /// The flag spelling, used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Workload::Fillseq => "fillseq",
            Workload::Fillrandom => "fillrandom",
            Workload::Overwrite => "overwrite",
            Workload::Readrandom => "readrandom",
            Workload::ReadrandomUncached => "readrandom-uncached",
            Workload::Seekrandom => "seekrandom",
        }
    }

    /// True for the phases that start from an empty database.
    pub fn starts_fresh(self) -> bool {
        matches!(self, Workload::Fillseq | Workload::Fillrandom)
    }

    /// True for the phases that write.
    pub fn writes(self) -> bool {
        matches!(
            self,
            Workload::Fillseq | Workload::Fillrandom | Workload::Overwrite
        )
    }
}

/// Flags of an engine benchmark run.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Size of the key space, and the number of writes of each write phase.
    #[arg(long, default_value_t = 1_000_000)]
    pub num: u64,
    /// Reads of each readrandom phase [default: --num].
    #[arg(long)]
    pub reads: Option<u64>,
    /// Seeks of the seekrandom phase [default: --num / 10].
    #[arg(long)]
    pub seeks: Option<u64>,
    /// Rows read after each seek.
    #[arg(long, default_value_t = 10)]
    pub seek_nexts: usize,
    /// Value size in bytes.
    #[arg(long, default_value_t = 100)]
    pub value_size: usize,
    /// Worker threads per phase; the operations of a phase are split between them.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Base seed; every phase and thread derives its own seed from it.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Comma-separated phases to run, in order.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = Workload::ALL)]
    pub workloads: Vec<Workload>,
    /// WAL durability of every write.
    #[arg(long, value_enum, default_value_t = DurabilityMode::Sync)]
    pub durability: DurabilityMode,
    /// Block cache size in MiB for the cached phases.
    #[arg(long, default_value_t = 512)]
    pub cache_mb: usize,
    /// Data block size in KiB for every system [default: each system's own: 64 in Strata,
    /// 4 in RocksDB].
    #[arg(long)]
    pub block_kb: Option<usize>,
    /// Parent directory of the databases (one subdirectory per system).
    #[arg(long, default_value = "/tmp/strata-bench")]
    pub db: PathBuf,
    /// Keep the databases after the run instead of removing them.
    #[arg(long)]
    pub keep_db: bool,
    /// Start from the database left in --db by an earlier --keep-db run.
    #[arg(long)]
    pub use_existing_db: bool,
    /// Repeat the whole sequence this many times and report medians.
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    /// Also print one JSON object per line on stdout (the table then goes to stderr).
    #[arg(long)]
    pub json: bool,
}

impl BenchArgs {
    /// Defaults for a run of `num` keys, as if no other flag were given.
    pub fn with_num(num: u64, db: PathBuf) -> Self {
        BenchArgs {
            num,
            reads: None,
            seeks: None,
            seek_nexts: 10,
            value_size: 100,
            threads: 1,
            seed: 42,
            workloads: Workload::ALL.to_vec(),
            durability: DurabilityMode::Sync,
            cache_mb: 512,
            block_kb: None,
            db,
            keep_db: false,
            use_existing_db: false,
            repeat: 1,
            json: false,
        }
    }

    /// Rejects flag combinations the harness cannot run.
    pub fn validate(&self) -> BenchResult<()> {
        if self.num == 0 || self.num > MAX_KEYS {
            return Err(BenchError::Config(format!(
                "--num must be between 1 and {MAX_KEYS}"
            )));
        }
        if self.threads == 0 {
            return Err(BenchError::Config("--threads must be at least 1".into()));
        }
        if self.value_size == 0 {
            return Err(BenchError::Config("--value-size must be at least 1".into()));
        }
        if self.repeat == 0 {
            return Err(BenchError::Config("--repeat must be at least 1".into()));
        }
        if self.block_kb == Some(0) {
            return Err(BenchError::Config("--block-kb must be at least 1".into()));
        }
        if self.workloads.is_empty() {
            return Err(BenchError::Config("--workloads is empty".into()));
        }
        Ok(())
    }

    /// How many operations `workload` performs in total (over all threads).
    pub fn ops_for(&self, workload: Workload) -> u64 {
        match workload {
            Workload::Fillseq | Workload::Fillrandom | Workload::Overwrite => self.num,
            Workload::Readrandom | Workload::ReadrandomUncached => self.reads.unwrap_or(self.num),
            Workload::Seekrandom => self.seeks.unwrap_or((self.num / 10).max(1)),
        }
    }

    /// Block cache size in bytes.
    pub fn cache_bytes(&self) -> usize {
        self.cache_mb.saturating_mul(1 << 20)
    }
}
