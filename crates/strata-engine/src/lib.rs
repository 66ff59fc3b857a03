//! Strata's storage engine: an LSM store with Apache HBase cell semantics.
//!
//! See `docs/architecture.md` for the module map and the write and read paths, and
//! `docs/format.md` for the on-disk formats.
//!
//! The public surface is deliberately small (the rest of the crate is `pub(crate)`, so it
//! can change without breaking callers):
//! - the root re-exports: [`Engine`], [`Region`] and [`RegionScanner`], [`Cell`], [`Get`],
//!   [`Scan`], [`RowResult`], the family and WAL options, [`Error`] and [`Result`];
//! - the WAL backend seam: [`WalBackend`] (stores group-commit batches, given as
//!   [`WalBatch`]), [`WalBackendOpener`] (replays as [`codec::WalEdit`]s), chosen by
//!   [`EngineOptions::wal_backend`];
//! - [`fs`]: the file-system seam (local, in-memory, fault-injecting, volumes);
//! - [`util::clock`] and [`util::thread`]: the time and thread seams;
//! - [`options`] and [`stats`]: configuration and the shapes of the engine's reports;
//! - [`tools`]: offline inspection of WAL segments, SSTables and manifests (the `strata`
//!   CLI); [`codec`]: the byte encodings other crates persist or ship (WAL records, varints);
//! - `fuzz_support`, behind the `fuzz` feature, for the fuzz targets and corpus replay.
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

pub(crate) mod api;
pub(crate) mod cache;
pub(crate) mod cell;
pub mod codec;
pub(crate) mod compaction;
pub(crate) mod engine;
pub(crate) mod error;
pub mod fs;
#[cfg(feature = "fuzz")]
pub mod fuzz_support;
pub(crate) mod iter;
pub(crate) mod key;
pub(crate) mod manifest;
pub(crate) mod memstore;
pub mod options;
pub(crate) mod read;
pub(crate) mod region;
pub(crate) mod snapshot;
pub mod stats;
pub(crate) mod store;
pub(crate) mod table;
pub mod tools;
pub mod util;
pub(crate) mod wal;

pub use api::{ColumnSelection, Get, RowResult, Scan, TimeRange};
pub use cache::{L2Options, L2Stats};
pub use cell::{Cell, CellType, LATEST_TIMESTAMP, MAX_ROW_LEN};
pub use engine::{Engine, EngineOptions, MoveReport};
pub use error::{Error, ErrorKind, Result};
pub use manifest::{InMemoryPointers, ManifestPointers, RowRange};
pub use options::{
    BloomType, Compression, DataBlockEncoding, Durability, FamilyOptions, KeepDeletedCells,
    SchemaMetadata, WalGroupCount, WalOptions,
};
pub use region::{PendingWrite, Region, RegionScanner, RegionSpec};
pub use snapshot::{
    SnapshotDescriptor, SnapshotFile, SnapshotRegion, SnapshotStore, SnapshotSummary,
};
pub use store::{CompactionOutcome, MoveRules};
pub use wal::{FailureGuard, WalBackend, WalBackendOpener, WalBatch};
