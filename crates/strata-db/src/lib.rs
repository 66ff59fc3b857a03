//! Strata embedded in a Rust program, the way one embeds RocksDB: open a database
//! directory and use the operations the network APIs offer (namespaces and tables, get,
//! put, delete, scans with HBase filter-language filters, counters, appends,
//! check-and-mutate, batches), with HBase's data model and semantics.
//!
//! This crate is a thin facade over `strata_server::Service`, the service layer the Thrift
//! and gRPC servers call: every operation here is the service's own, so embedded programs
//! and network clients see exactly the same behaviour. [`Db::service`] hands the service to
//! code that needs more, and [`Db::from_service`] wraps a service someone else opened.
//!
//! # Quick start
//!
//! ```
//! use strata_db::{Db, Delete, Family, Get, Put, Scan, TableBuilder};
//!
//! # fn main() -> strata_db::Result<()> {
//! # let dir = tempfile::tempdir().map_err(|e| strata_db::Error::InvalidArgument(e.to_string()))?;
//! let db = Db::open(dir.path())?;
//! let users = db.create_table(TableBuilder::new("users").family(Family::new("info").versions(3)))?;
//!
//! users.put(Put::new("u1").add("info", "name", "Ada").add("info", "city", "London"))?;
//! users.put(Put::new("u2").add("info", "name", "Alan").add("info", "city", "Wilmslow"))?;
//!
//! let row = users.get(Get::new("u1"))?.expect("u1 was just written");
//! assert_eq!(row.value("info", "name"), Some(&b"Ada"[..]));
//!
//! // Scans stream rows in batches; filters use HBase's filter language.
//! let in_london: Vec<_> = users
//!     .scan(Scan::new().filter("SingleColumnValueFilter('info', 'city', =, 'binary:London')"))?
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(in_london.len(), 1);
//! assert_eq!(in_london[0].key(), b"u1");
//!
//! assert_eq!(users.increment("u1", "info", "visits", 5)?, 5);
//! users.delete(Delete::new("u2"))?;
//! assert!(users.get(Get::new("u2"))?.is_none());
//! db.close()?;
//! # Ok(())
//! # }
//! ```
//!
//! # Blocking and async
//!
//! [`Db`] and [`Table`] block the calling thread. With the `tokio` feature (on by default),
//! [`AsyncDb`] and [`AsyncTable`] offer the same methods as `async fn`s that run the
//! blocking calls on tokio's blocking pool, and scans as a [`RowStream`].
//!
//! # Errors
//!
//! Every call returns [`Result`] with the one [`Error`] type: corruption is its own kind,
//! bad requests (names, families, filters, timestamps) are `InvalidArgument` or
//! `InvalidFilter`, and the rest carries the service's error.

#![warn(missing_docs)]

mod admin;
mod check;
mod db;
mod error;
mod mutation;
#[cfg(feature = "tokio")]
mod nonblocking;
mod open_database;
mod options;
mod read;
mod row;
mod scan_iter;
mod table;

pub use admin::{Family, TableBuilder};
pub use check::CheckAndMutate;
pub use db::Db;
pub use error::{Error, Result};
pub use mutation::{Append, Delete, Mutation, Put};
#[cfg(feature = "tokio")]
pub use nonblocking::{AsyncDb, AsyncTable, RowStream};
pub use options::Options;
pub use read::{Get, Scan, DEFAULT_SCAN_BATCH};
pub use row::Row;
pub use scan_iter::RowIter;
pub use table::Table;

pub use strata_engine::{BloomType, Cell, CellType, Compression, Durability, LATEST_TIMESTAMP};
pub use strata_server::{
    AlterOp, CompareOp, RegionInfo, ServiceError, SplitAt, TableDescriptor, TableName,
    WriteDurability,
};
/// The service layer under [`Db`], for adapters and tools.
pub use strata_server::{Service, ServiceOptions};
