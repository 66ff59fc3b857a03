//! The embedded target: Strata in this process through `strata_db` (the same service layer
//! the servers use), on a data directory that is temporary unless one is given.

use std::path::PathBuf;

use strata_db::{CheckAndMutate, Db, Durability, Family, Get, Mutation, Options, Put, Scan};
use strata_db::{Table, TableBuilder};

use super::{Client, RowWrite, ScanOutcome, TableSpec, Target};
use crate::error::{BenchError, BenchResult};
use crate::target::DurabilityMode;

const NAME: &str = "embedded";

fn db_err(e: strata_db::Error) -> BenchError {
    BenchError::target(NAME, e)
}

/// Maps the harness's durability names onto the engine's.
pub fn engine_durability(mode: DurabilityMode) -> Durability {
    match mode {
        DurabilityMode::Skip => Durability::SkipWal,
        DurabilityMode::Async => Durability::AsyncWal,
        DurabilityMode::Sync => Durability::SyncWal,
        DurabilityMode::Fsync => Durability::FsyncWal,
    }
}

/// An open database and the benchmark's table spec.
pub struct EmbeddedTarget {
    db: Db,
    spec: TableSpec,
    /// The family the benchmark creates has ROW_CACHE (the row cache has room).
    row_cache: bool,
    /// Keeps a temporary data directory alive until the target is dropped.
    _temp: Option<tempfile::TempDir>,
}

impl EmbeddedTarget {
    /// Opens (or creates) the database in `dir`, or in a new temporary directory, with a
    /// row cache of `row_cache_bytes` (0: none).
    pub fn open(dir: Option<PathBuf>, spec: TableSpec, row_cache_bytes: u64) -> BenchResult<Self> {
        let (path, temp) = match dir {
            Some(dir) => (dir, None),
            None => {
                let temp = tempfile::Builder::new()
                    .prefix("strata-bench-")
                    .tempdir()
                    .map_err(|e| BenchError::io(&std::env::temp_dir(), e))?;
                (temp.path().to_path_buf(), Some(temp))
            }
        };
        let mut options = Options::new(path).row_cache_bytes(row_cache_bytes);
        if let Some(mode) = spec.durability {
            options = options.durability(engine_durability(mode));
        }
        let db = Db::open_with(options).map_err(db_err)?;
        Ok(EmbeddedTarget {
            db,
            spec,
            row_cache: row_cache_bytes > 0,
            _temp: temp,
        })
    }
}

impl Target for EmbeddedTarget {
    fn name(&self) -> &'static str {
        NAME
    }

    fn prepare_table(&self) -> BenchResult<()> {
        match self.db.table(&self.spec.table) {
            Ok(_) => return Ok(()),
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(db_err(e)),
        }
        let mut builder = TableBuilder::new(self.spec.table.clone())
            .family(Family::new(self.spec.family.as_bytes().to_vec()).row_cache(self.row_cache))
            .split_keys(self.spec.split_keys.clone());
        // The table's DURABILITY too, so increments and appends (which follow the table,
        // as in HBase) are written with it as well.
        if let Some(mode) = self.spec.durability {
            builder = builder.durability(engine_durability(mode));
        }
        self.db.create_table(builder).map(|_| ()).map_err(db_err)
    }

    fn connect(&self) -> BenchResult<Box<dyn Client>> {
        let mut table = self.db.table(&self.spec.table).map_err(db_err)?;
        if let Some(mode) = self.spec.durability {
            table = table.with_durability(engine_durability(mode));
        }
        Ok(Box::new(EmbeddedClient {
            table,
            family: self.spec.family.clone(),
        }))
    }

    fn finish(&self) -> BenchResult<()> {
        if self.row_cache {
            // On stderr, beside the progress bar: the phases' reports stay as they were.
            let s = self.db.service().engine().row_cache_stats();
            let lookups = (s.hits + s.misses).max(1);
            eprintln!(
                "row cache: {} hits, {} misses ({:.1}% hits), {} rows in {} MiB, {} evictions, \
                 {} invalidations",
                s.hits,
                s.misses,
                100.0 * s.hits as f64 / lookups as f64,
                s.entries,
                s.size_bytes >> 20,
                s.evictions,
                s.invalidations
            );
        }
        self.db.close().map_err(db_err)
    }
}

/// One thread's handle on the table.
struct EmbeddedClient {
    table: Table,
    family: String,
}

impl EmbeddedClient {
    fn put_of(&self, row: &RowWrite) -> Put {
        row.columns
            .iter()
            .fold(Put::new(row.key.clone()), |put, (q, v)| {
                put.add(self.family.clone().into_bytes(), q.clone(), v.clone())
            })
    }
}

impl Client for EmbeddedClient {
    fn write(&mut self, rows: &[RowWrite]) -> BenchResult<()> {
        if let [row] = rows {
            return self.table.put(self.put_of(row)).map_err(db_err);
        }
        let batch: Vec<Mutation> = rows.iter().map(|r| self.put_of(r).into()).collect();
        self.table.batch(batch).map_err(db_err)
    }

    fn read(&mut self, row: &[u8]) -> BenchResult<Option<usize>> {
        let get = Get::new(row.to_vec()).family(self.family.clone().into_bytes());
        let found = self.table.get(get).map_err(db_err)?;
        Ok(found.map(|r| r.len()))
    }

    fn read_many(&mut self, rows: &[Vec<u8>]) -> BenchResult<usize> {
        let mut found = 0;
        for row in rows {
            found += usize::from(self.read(row)?.is_some());
        }
        Ok(found)
    }

    fn scan(
        &mut self,
        start: &[u8],
        stop: Option<&[u8]>,
        limit: usize,
    ) -> BenchResult<ScanOutcome> {
        let mut scan = Scan::new()
            .start_row(start.to_vec())
            .family(self.family.clone().into_bytes())
            .limit(limit)
            .batch_size(limit.clamp(1, strata_db::DEFAULT_SCAN_BATCH));
        if let Some(stop) = stop {
            scan = scan.stop_row(stop.to_vec());
        }
        let mut outcome = ScanOutcome::default();
        for row in self.table.scan(scan).map_err(db_err)? {
            let row = row.map_err(db_err)?;
            outcome.rows += 1;
            outcome.last_key = Some(row.key().to_vec());
        }
        Ok(outcome)
    }

    fn increment(&mut self, row: &[u8], qualifier: &[u8], amount: i64) -> BenchResult<i64> {
        self.table
            .increment(row, self.family.as_bytes(), qualifier, amount)
            .map_err(db_err)
    }

    fn check_and_put(
        &mut self,
        row: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
    ) -> BenchResult<bool> {
        let family = self.family.clone().into_bytes();
        let put = Put::new(row.to_vec()).add(family.clone(), qualifier.to_vec(), value.to_vec());
        let request = CheckAndMutate::new(row.to_vec(), family, qualifier.to_vec())
            .if_equals(expected.to_vec())
            .then(put);
        self.table.check_and_mutate(request).map_err(db_err)
    }
}
