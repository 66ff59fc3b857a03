//! Strata's service layer: namespaces and tables (the catalog), tables split into regions by
//! row range, row operations and scanners. The Thrift, gRPC and HTTP servers are thin
//! adapters that translate their protocol onto this one API.

pub mod catalog;
pub mod connections;
mod drop_range;
pub mod durability;
pub mod error;
pub mod filter;
pub mod fuzz_support;
mod latest_delete;
pub mod limits;
mod locked_row;
pub mod metrics;
pub mod names;
mod region_sizes;
pub mod request_budget;
mod row_locks;
mod row_ops;
mod row_stream;
mod row_txn;
mod scanner_ops;
pub mod scanners;
pub mod schema;
mod service;
mod split;
pub mod status;
pub mod table;
pub mod write_budget;

pub use durability::WriteDurability;
pub use error::{ErrorKind, Result, ServiceError};
pub use limits::{Dialect, Limits};
pub use names::{TableName, DEFAULT_NAMESPACE};
pub use row_ops::{Check, CompareOp};
pub use row_stream::RowStream;
pub use scanners::{
    ScannerLookup, ScannerOptions, ScannerOwner, ScannerProtocol, ScannerResults, SCANNER_LEASE,
};
pub use schema::AlterOp;
pub use service::{Service, ServiceOptions};
pub use split::{SplitAt, SplitPolicy};
pub use table::{RegionInfo, TableDescriptor};
