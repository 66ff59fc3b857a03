//! Strata's storage engine: an LSM store with Apache HBase cell semantics.
//!
//! See `docs/architecture.md` for the module map and the write and read paths, and
//! `docs/format.md` for the on-disk formats.
//!
//! ```
//! use strata_engine::{Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, RegionSpec, Scan};
//!
//! # fn main() -> strata_engine::Result<()> {
//! # let dir = tempfile::tempdir().map_err(|e| strata_engine::Error::io("tempdir", e))?;
//! let engine = Engine::open(EngineOptions::new(dir.path()))?;
//! let region = engine.open_region(RegionSpec { id: 1, families: vec![FamilyOptions::new("cf")] })?;
//! region.mutate(vec![Cell::put("row1", "cf", "q", 1_700_000_000_000, "value")], Durability::SyncWal)?;
//! let row = region.get(&Get::new("row1").family("cf"))?.expect("the row was just written");
//! assert_eq!(row.cells[0].value, "value");
//! let rows: Vec<_> = region.scan(&Scan::new().range("row0", "row9"))?.collect::<Result<_, _>>()?;
//! assert_eq!(rows.len(), 1);
//! engine.close()?;
//! # Ok(())
//! # }
//! ```

pub mod api;
pub mod cache;
pub mod cell;
pub mod compaction;
pub mod engine;
pub mod error;
pub mod fs;
pub mod fuzz_support;
pub mod iter;
pub mod key;
pub mod manifest;
pub mod memstore;
pub mod options;
pub mod read;
pub mod region;
pub mod stats;
pub mod store;
pub mod table;
pub mod util;
pub mod wal;

pub use api::{Get, RowResult, Scan, TimeRange};
pub use cell::{Cell, CellType, LATEST_TIMESTAMP};
pub use engine::{Engine, EngineOptions};
pub use error::{Error, ErrorKind, Result};
pub use iter::KvIter;
pub use options::{
    BloomType, Compression, DataBlockEncoding, Durability, FamilyOptions, KeepDeletedCells,
    WalOptions,
};
pub use region::{PendingWrite, Region, RegionScanner, RegionSpec};
pub use store::CompactionOutcome;
pub use wal::FailureGuard;
