//! RocksDB as a benchmark target, configured like the published db_bench anchor: no
//! compression, a 10 bits/key full bloom filter, an LRU block cache of `--cache-mb`.

use rocksdb::{
    BlockBasedOptions, Cache, DBCompressionType, Options, ReadOptions, WriteOptions, DB,
};
use strata_bench::{
    Backend, BenchError, BenchResult, CacheMode, DurabilityMode, KvTarget, OpenSpec,
};

const NAME: &str = "rocksdb";

fn err(e: rocksdb::Error) -> BenchError {
    BenchError::target(NAME, e)
}

/// Opens RocksDB databases.
pub struct RocksBackend;

impl RocksBackend {
    fn options(spec: &OpenSpec) -> BenchResult<Options> {
        let mut table = BlockBasedOptions::default();
        if let Some(block_size) = spec.block_size {
            table.set_block_size(block_size);
        }
        match spec.cache {
            CacheMode::Enabled(bytes) => {
                table.set_block_cache(&Cache::new_lru_cache(bytes).map_err(err)?)
            }
            // Index and filter blocks still live in the table readers (RocksDB's default of
            // cache_index_and_filter_blocks = false), matching Strata's uncached mode.
            CacheMode::Disabled => table.disable_cache(),
        }
        table.set_bloom_filter(10.0, false);
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.set_compression_type(DBCompressionType::None);
        opts.set_max_background_jobs(2);
        opts.set_block_based_table_factory(&table);
        Ok(opts)
    }

    /// The WAL mapping: RocksDB writes its WAL buffer to the OS on every write unless told
    /// otherwise, so both Strata's ASYNC_WAL and SYNC_WAL map to `sync = false`.
    fn write_options(durability: DurabilityMode) -> WriteOptions {
        let mut wo = WriteOptions::default();
        match durability {
            DurabilityMode::Skip => wo.disable_wal(true),
            DurabilityMode::Async | DurabilityMode::Sync => wo.set_sync(false),
            DurabilityMode::Fsync => wo.set_sync(true),
        }
        wo
    }
}

impl Backend for RocksBackend {
    fn name(&self) -> String {
        NAME.into()
    }

    fn open(&self, spec: &OpenSpec) -> BenchResult<Box<dyn KvTarget>> {
        let db = DB::open(&Self::options(spec)?, &spec.dir).map_err(err)?;
        Ok(Box::new(RocksTarget {
            db,
            write: Self::write_options(spec.durability),
        }))
    }
}

/// One open RocksDB database.
pub struct RocksTarget {
    db: DB,
    write: WriteOptions,
}

impl KvTarget for RocksTarget {
    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()> {
        self.db.put_opt(key, value, &self.write).map_err(err)
    }

    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>> {
        // Pinned: the value is not copied, as Strata's reads return shared buffers.
        Ok(self.db.get_pinned(key).map_err(err)?.map(|v| v.len()))
    }

    fn scan(&self, start: &[u8], n: usize) -> BenchResult<usize> {
        let mut it = self.db.raw_iterator_opt(ReadOptions::default());
        it.seek(start);
        let mut rows = 0;
        while rows < n && it.valid() {
            // Touch the row so the work matches a scan that returns it.
            std::hint::black_box((it.key(), it.value()));
            rows += 1;
            it.next();
        }
        it.status().map_err(err)?;
        Ok(rows)
    }

    fn flush(&self) -> BenchResult<()> {
        self.db.flush().map_err(err)
    }

    fn close(self: Box<Self>) -> BenchResult<()> {
        // Dropping the handle waits for background work and releases the lock file.
        drop(self);
        Ok(())
    }
}
