//! Strata's engine as a benchmark target: one engine, one region, one family `cf`, one
//! qualifier `q`; each key is a row holding one cell.

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{
    Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, Region, RegionSpec, Scan,
    LATEST_TIMESTAMP,
};

use crate::error::{BenchError, BenchResult};
use crate::target::{Backend, CacheMode, DurabilityMode, KvTarget, OpenSpec};

const NAME: &str = "strata";
const FAMILY: &[u8] = b"cf";
const QUALIFIER: &[u8] = b"q";
const REGION_ID: u64 = 1;

/// Engine block cache in uncached mode: data blocks bypass it (the family's BLOCKCACHE is
/// off), so only the open files' index and bloom memory is charged to it (both systems keep
/// index and bloom blocks in their table readers).
const METADATA_CACHE_BYTES: u64 = 64 << 20;

fn err(e: strata_engine::Error) -> BenchError {
    BenchError::target(NAME, e)
}

/// Opens Strata engines.
#[derive(Debug, Default)]
pub struct StrataBackend;

impl StrataBackend {
    /// A backend with default engine settings.
    pub fn new() -> Self {
        StrataBackend
    }

    fn engine_options(spec: &OpenSpec) -> EngineOptions {
        let mut options = EngineOptions::new(&spec.dir);
        options.block_cache_bytes = match spec.cache {
            CacheMode::Enabled(bytes) => u64::try_from(bytes).unwrap_or(u64::MAX),
            CacheMode::Disabled => METADATA_CACHE_BYTES,
        };
        options
    }

    fn family(spec: &OpenSpec) -> FamilyOptions {
        let mut family = FamilyOptions::new(FAMILY);
        family.block_cache_enabled = spec.cache != CacheMode::Disabled;
        if let Some(block_size) = spec.block_size {
            family.block_size = block_size;
        }
        family
    }
}

/// Strata's durability for the harness's mode: the names match one to one.
fn durability(mode: DurabilityMode) -> Durability {
    match mode {
        DurabilityMode::Skip => Durability::SkipWal,
        DurabilityMode::Async => Durability::AsyncWal,
        DurabilityMode::Sync => Durability::SyncWal,
        DurabilityMode::Fsync => Durability::FsyncWal,
    }
}

impl Backend for StrataBackend {
    fn name(&self) -> String {
        NAME.into()
    }

    fn open(&self, spec: &OpenSpec) -> BenchResult<Box<dyn KvTarget>> {
        let engine = Engine::open(Self::engine_options(spec)).map_err(err)?;
        let region = engine
            .open_region(RegionSpec {
                id: REGION_ID,
                families: vec![Self::family(spec)],
            })
            .map_err(err)?;
        Ok(Box::new(StrataTarget {
            engine,
            region,
            durability: durability(spec.durability),
        }))
    }
}

/// One open engine with the benchmark's region.
pub struct StrataTarget {
    engine: Arc<Engine>,
    region: Arc<Region>,
    durability: Durability,
}

impl KvTarget for StrataTarget {
    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()> {
        let cell = Cell::put(
            Bytes::copy_from_slice(key),
            Bytes::from_static(FAMILY),
            Bytes::from_static(QUALIFIER),
            LATEST_TIMESTAMP,
            Bytes::copy_from_slice(value),
        );
        self.region
            .mutate(vec![cell], self.durability)
            .map(|_| ())
            .map_err(err)
    }

    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>> {
        let get = Get::new(Bytes::copy_from_slice(key)).family(Bytes::from_static(FAMILY));
        let row = self.region.get(&get).map_err(err)?;
        Ok(row.and_then(|r| r.cells.first().map(|c| c.value.len())))
    }

    fn scan(&self, start: &[u8], n: usize) -> BenchResult<usize> {
        let scan = Scan::new()
            .range(Bytes::copy_from_slice(start), Bytes::new())
            .limit(n);
        let mut rows = 0;
        for row in self.region.scan(&scan).map_err(err)? {
            std::hint::black_box(row.map_err(err)?);
            rows += 1;
        }
        Ok(rows)
    }

    fn flush(&self) -> BenchResult<()> {
        self.region.flush().map_err(err)
    }

    fn close(self: Box<Self>) -> BenchResult<()> {
        // close() flushes the region and closes the WAL; dropping the handles then stops
        // the background worker and releases the files for a reopen.
        let StrataTarget { engine, region, .. } = *self;
        let closed = engine.close().map_err(err);
        drop(region);
        drop(engine);
        closed
    }
}
