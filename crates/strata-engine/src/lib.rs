//! Strata's storage engine: an LSM store with Apache HBase cell semantics.
//!
//! See `docs/architecture.md` for the module map and the write and read paths, and
//! `docs/format.md` for the on-disk formats.

pub mod api;
pub mod cache;
pub mod cell;
pub mod compaction;
pub mod engine;
pub mod error;
pub mod fs;
pub mod iter;
pub mod key;
pub mod manifest;
pub mod memstore;
pub mod options;
pub mod read;
pub mod region;
pub mod store;
pub mod table;
pub mod util;
pub mod wal;

pub use api::{Get, RowResult, Scan, TimeRange};
pub use engine::{Engine, EngineOptions};
pub use region::{Region, RegionSpec};
pub use read::scanner::RegionScanner;
pub use cell::{Cell, CellType, LATEST_TIMESTAMP};
pub use error::{Error, Result};
pub use iter::KvIter;
pub use options::{
    BloomType, Compression, DataBlockEncoding, Durability, FamilyOptions, KeepDeletedCells,
    WalOptions,
};
