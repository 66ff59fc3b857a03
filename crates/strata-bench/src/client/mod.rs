//! The systems a PE or YCSB workload runs against: one [`Target`] per system (embedded,
//! Thrift, gRPC), which hands each worker thread its own [`Client`] (its own connection).
//!
//! The operations are the handful HBase's PerformanceEvaluation and YCSB's core workload
//! need; each target maps them onto its API's natural calls.

pub mod embedded;
pub mod grpc;
pub mod thrift;
pub mod thrift_routed;

use crate::error::BenchResult;
use crate::target::DurabilityMode;

/// One row to write: its key and `(qualifier, value)` pairs in the table's family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowWrite {
    pub key: Vec<u8>,
    pub columns: Vec<(Vec<u8>, Vec<u8>)>,
}

/// What one scan call returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanOutcome {
    pub rows: usize,
    /// Key of the last row returned, to page on from.
    pub last_key: Option<Vec<u8>>,
}

/// The table a workload uses.
#[derive(Debug, Clone)]
pub struct TableSpec {
    /// `table` or `namespace:table`.
    pub table: String,
    pub family: String,
    /// Keys at which to pre-split the table when the benchmark creates it.
    pub split_keys: Vec<Vec<u8>>,
    /// Durability of writes, where the target can choose it.
    pub durability: Option<DurabilityMode>,
}

/// One worker thread's connection to the system under test.
pub trait Client: Send {
    /// Writes rows (one batch call where the API has one).
    fn write(&mut self, rows: &[RowWrite]) -> BenchResult<()>;
    /// Reads the newest version of every column of `row`; the number of cells, or `None`
    /// when the row does not exist.
    fn read(&mut self, row: &[u8]) -> BenchResult<Option<usize>>;
    /// Reads several rows in one call where the API allows; returns how many exist.
    fn read_many(&mut self, rows: &[Vec<u8>]) -> BenchResult<usize>;
    /// Reads up to `limit` rows from `start` (inclusive) to `stop` (exclusive, `None` = end).
    fn scan(&mut self, start: &[u8], stop: Option<&[u8]>, limit: usize)
        -> BenchResult<ScanOutcome>;
    /// Adds `amount` to the 8-byte counter `qualifier` of `row`; returns the new value.
    fn increment(&mut self, row: &[u8], qualifier: &[u8], amount: i64) -> BenchResult<i64>;
    /// Writes `value` to `qualifier` if the stored value equals `expected`; whether it did.
    fn check_and_put(
        &mut self,
        row: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
    ) -> BenchResult<bool>;
}

/// A system under test, shared by all worker threads.
pub trait Target: Send + Sync {
    /// The name in reports (`embedded`, `thrift`, `grpc`).
    fn name(&self) -> &'static str;
    /// Creates the table if it does not exist yet.
    fn prepare_table(&self) -> BenchResult<()>;
    /// A new connection for one worker thread.
    fn connect(&self) -> BenchResult<Box<dyn Client>>;
    /// Ends the session (closes an embedded database); the default does nothing.
    fn finish(&self) -> BenchResult<()> {
        Ok(())
    }
}

/// The smallest key after `key` (for paging a scan on).
pub fn key_after(key: &[u8]) -> Vec<u8> {
    let mut next = key.to_vec();
    next.push(0);
    next
}

/// `family:qualifier`, the column spelling of HBase's Thrift1 API.
pub fn column_name(family: &str, qualifier: &[u8]) -> Vec<u8> {
    let mut column = Vec::with_capacity(family.len() + 1 + qualifier.len());
    column.extend_from_slice(family.as_bytes());
    column.push(b':');
    column.extend_from_slice(qualifier);
    column
}

/// An 8-byte big-endian counter value, as HBase stores increments.
pub fn decode_counter(target: &str, value: &[u8]) -> BenchResult<i64> {
    let bytes: [u8; 8] = value.try_into().map_err(|_| {
        crate::error::BenchError::target(
            target,
            format!("counter value has {} bytes, not 8", value.len()),
        )
    })?;
    Ok(i64::from_be_bytes(bytes))
}
