//! The Thrift1 operations on the service layer, on plain Rust types. The generated trait's
//! implementation (`handler`) only unwraps arguments and calls these.

pub mod admin;
pub mod reads;
pub mod scans;
pub mod strata;
pub mod writes;

use bytes::Bytes;
use strata_engine::TimeRange;
use strata_server::TableName;

use crate::failure::{from_service, CallResult, Failure};

/// Parses a table name sent as bytes (`table` or `namespace:table`).
pub fn table_name(bytes: &[u8]) -> CallResult<TableName> {
    TableName::from_bytes(bytes).map_err(from_service)
}

/// HBase's reads "as of T": the half-open range `[0, T)`.
pub fn before(timestamp: i64) -> CallResult<TimeRange> {
    if timestamp < 0 {
        return Err(Failure::Internal(format!(
            "timestamp {timestamp} is negative"
        )));
    }
    Ok(TimeRange::new(0, timestamp))
}

/// Rejects the row keys HBase rejects before touching a table.
pub fn check_row(row: &Bytes) -> CallResult<()> {
    if row.is_empty() {
        return Err(Failure::Internal("row key must not be empty".to_string()));
    }
    if row.len() > strata_engine::MAX_ROW_LEN {
        return Err(Failure::Internal(format!(
            "row key is {} bytes, the limit is {}",
            row.len(),
            strata_engine::MAX_ROW_LEN
        )));
    }
    Ok(())
}
