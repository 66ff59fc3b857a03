//! Strata's service layer: namespaces and tables (the catalog), tables split into regions by
//! row range, row operations and scanners. The Thrift, gRPC and HTTP servers are thin
//! adapters that translate their protocol onto this one API: the [`Service`] and the
//! components it hands out, [`Rows`], [`Scanners`], [`Admin`] and [`PeerServing`]
//! (`service/`), over the table directory (`directory/`), row operations (`rows/`), the
//! splitter (`splitter.rs`) and the scanner registry (`scanners/`).

pub mod access;
pub mod catalog;
pub mod cluster_members;
pub mod connections;
pub mod directory;
pub mod durability;
pub mod error;
pub mod failpoints;
pub mod family_attrs;
pub mod filter;
pub mod fuzz_support;
mod get_scan;
pub mod inline;
pub mod limits;
pub mod metrics;
pub mod names;
mod region_sizes;
pub mod registry;
pub mod remote;
pub mod request_budget;
mod row_locks;
mod row_stream;
mod rows;
pub mod scanners;
pub mod schema_metadata;
mod service;
mod serving;
pub mod split_algorithms;
mod splitter;
pub mod status;
pub mod table;
mod table_changes;
pub mod write_budget;

pub use directory::{SnapshotInfo, TableDirectory};
pub use durability::WriteDurability;
pub use error::{ErrorKind, LimitClass, Result, ServiceError};
pub use limits::{Dialect, Limits};
pub use names::{TableName, DEFAULT_NAMESPACE};
pub use row_stream::RowStream;
pub use rows::{Check, CompareOp};
pub use scanners::{
    ScannerLookup, ScannerOptions, ScannerOwner, ScannerProtocol, ScannerResults, SCANNER_LEASE,
};
pub use service::{Admin, PeerServing, Rows, Scanners, Service, ServiceOptions};
pub use splitter::SplitPolicy;
pub use table::{RegionInfo, TableDescriptor};
pub use table_changes::{AlterOp, SplitAt};
