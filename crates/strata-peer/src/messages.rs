//! The wire messages of the peer service, written by hand as prost messages (there is no
//! `.proto` file, so no `protoc` at build time). They are the payloads of the frames
//! (`frame.rs`). Field numbers are the wire format: never reuse or renumber one; add new
//! fields with new numbers.
//!
//! Conversions to and from the service's own types are in `convert.rs`.

use bytes::Bytes;

/// One cell with all its coordinates.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Cell {
    #[prost(bytes = "bytes", tag = "1")]
    pub row: Bytes,
    #[prost(bytes = "bytes", tag = "2")]
    pub family: Bytes,
    #[prost(bytes = "bytes", tag = "3")]
    pub qualifier: Bytes,
    #[prost(int64, tag = "4")]
    pub timestamp: i64,
    /// HBase's `KeyValue.Type` code (`strata_engine::CellType::code`).
    #[prost(uint32, tag = "5")]
    pub cell_type: u32,
    #[prost(bytes = "bytes", tag = "6")]
    pub value: Bytes,
    /// The owner's MVCC sequence id of a cell it read (0 in a write: the owner assigns
    /// one). A conditional write compares the reads it was computed from with the owner's
    /// current answer cell by cell, sequence id included, so a read must come back exactly
    /// as the owner gave it.
    #[prost(uint64, tag = "7")]
    pub seq: u64,
}

/// The columns of one family a read selects.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FamilyColumns {
    #[prost(bytes = "bytes", tag = "1")]
    pub family: Bytes,
    /// Every qualifier of the family (then `qualifiers` is empty).
    #[prost(bool, tag = "2")]
    pub all: bool,
    /// The qualifiers selected when `all` is false.
    #[prost(bytes = "bytes", repeated, tag = "3")]
    pub qualifiers: Vec<Bytes>,
}

/// A point read of one row (`strata_engine::Get`). No families: every family.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Get {
    #[prost(bytes = "bytes", tag = "1")]
    pub row: Bytes,
    #[prost(message, repeated, tag = "2")]
    pub columns: Vec<FamilyColumns>,
    #[prost(uint32, tag = "3")]
    pub max_versions: u32,
    /// The time range `[time_min, time_max)`.
    #[prost(int64, tag = "4")]
    pub time_min: i64,
    #[prost(int64, tag = "5")]
    pub time_max: i64,
}

/// A range read (`strata_engine::Scan`) without its row limit: a chunk has its own.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Scan {
    #[prost(bytes = "bytes", tag = "1")]
    pub start_row: Bytes,
    #[prost(bytes = "bytes", tag = "2")]
    pub stop_row: Bytes,
    #[prost(bool, tag = "3")]
    pub reversed: bool,
    #[prost(message, repeated, tag = "4")]
    pub columns: Vec<FamilyColumns>,
    #[prost(uint32, tag = "5")]
    pub max_versions: u32,
    #[prost(int64, tag = "6")]
    pub time_min: i64,
    #[prost(int64, tag = "7")]
    pub time_max: i64,
    #[prost(bool, tag = "8")]
    pub cache_blocks: bool,
}

/// The cells of one row.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RowResult {
    #[prost(bytes = "bytes", tag = "1")]
    pub row: Bytes,
    #[prost(message, repeated, tag = "2")]
    pub cells: Vec<Cell>,
}

/// Whose size limits a write was checked against (`strata_server::Dialect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum Dialect {
    Hbase = 0,
    Bigtable = 1,
}

/// `RegionPeer::get`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetRequest {
    /// `namespace:table`.
    #[prost(string, tag = "1")]
    pub table: String,
    #[prost(message, optional, tag = "2")]
    pub get: Option<Get>,
    /// The digest of the table's catalog record as the sender sees it.
    #[prost(uint64, tag = "3")]
    pub schema: u64,
}

/// The row read, absent when it has no cells the read selects.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetResponse {
    #[prost(message, optional, tag = "1")]
    pub row: Option<RowResult>,
}

/// `RegionPeer::mutate`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MutateRequest {
    #[prost(string, tag = "1")]
    pub table: String,
    #[prost(message, repeated, tag = "2")]
    pub cells: Vec<Cell>,
    #[prost(enumeration = "Dialect", tag = "3")]
    pub dialect: i32,
    /// HBase's durability name (`WriteDurability::name`), e.g. `SYNC_WAL`.
    #[prost(string, tag = "4")]
    pub durability: String,
    /// The digest of the table's catalog record as the sender sees it.
    #[prost(uint64, tag = "5")]
    pub schema: u64,
}

/// A mutation was applied.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MutateResponse {}

/// A read the caller made and what it answered (`answer` absent: no row).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExpectedRead {
    #[prost(message, optional, tag = "1")]
    pub get: Option<Get>,
    #[prost(message, optional, tag = "2")]
    pub answer: Option<RowResult>,
}

/// `RegionPeer::mutate_if`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MutateIfRequest {
    #[prost(string, tag = "1")]
    pub table: String,
    #[prost(bytes = "bytes", tag = "2")]
    pub row: Bytes,
    #[prost(message, repeated, tag = "3")]
    pub expected: Vec<ExpectedRead>,
    #[prost(message, repeated, tag = "4")]
    pub cells: Vec<Cell>,
    #[prost(enumeration = "Dialect", tag = "5")]
    pub dialect: i32,
    #[prost(string, tag = "6")]
    pub durability: String,
    /// The digest of the table's catalog record as the sender sees it.
    #[prost(uint64, tag = "7")]
    pub schema: u64,
}

/// Whether a conditional write was applied.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MutateIfResponse {
    #[prost(bool, tag = "1")]
    pub applied: bool,
}

/// `RegionPeer::scan_chunk`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScanChunkRequest {
    #[prost(string, tag = "1")]
    pub table: String,
    #[prost(message, optional, tag = "2")]
    pub scan: Option<Scan>,
    #[prost(bytes = "bytes", tag = "3")]
    pub region_start: Bytes,
    #[prost(bytes = "bytes", tag = "4")]
    pub region_end: Bytes,
    /// Rows up to and including this one (in scan order) were returned already.
    #[prost(bytes = "bytes", optional, tag = "5")]
    pub after: Option<Bytes>,
    #[prost(uint64, tag = "6")]
    pub max_rows: u64,
    /// The digest of the table's catalog record as the sender sees it.
    #[prost(uint64, tag = "7")]
    pub schema: u64,
}

/// Up to `max_rows` rows; fewer means the range is exhausted.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScanChunkResponse {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<RowResult>,
}

/// `RegionPeer::maintain`: flush or compact the owner's regions overlapping a row range.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MaintainRequest {
    #[prost(string, tag = "1")]
    pub table: String,
    #[prost(bytes = "bytes", tag = "2")]
    pub start: Bytes,
    #[prost(bytes = "bytes", tag = "3")]
    pub end: Bytes,
    #[prost(enumeration = "RegionWork", tag = "4")]
    pub work: i32,
    /// The digest of the table's catalog record as the sender sees it.
    #[prost(uint64, tag = "5")]
    pub schema: u64,
}

/// `RegionPeer::maintain`'s answer: the regions' size in bytes after the work.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MaintainResponse {
    #[prost(uint64, tag = "1")]
    pub bytes: u64,
}

/// `RegionPeer::admin`: an administration request for the master, in the bytes of
/// `strata_server::remote::admin_codec` (they reuse the catalog's family encoding).
#[derive(Clone, PartialEq, prost::Message)]
pub struct AdminRequest {
    #[prost(bytes = "bytes", tag = "1")]
    pub request: Bytes,
}

/// `RegionPeer::admin`'s answer, in the same codec.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AdminResponse {
    #[prost(bytes = "bytes", tag = "1")]
    pub reply: Bytes,
}

/// `strata_server::remote::RegionWork`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum RegionWork {
    Flush = 0,
    Compact = 1,
    MajorCompact = 2,
    Measure = 3,
    Release = 4,
}

/// `strata_server::ErrorKind`, carried in an error's details.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
#[non_exhaustive]
pub enum ErrorKind {
    InvalidArgument = 0,
    NotFound = 1,
    AlreadyExists = 2,
    FailedPrecondition = 3,
    Busy = 4,
    Unavailable = 5,
    Corruption = 6,
    Io = 7,
    PermissionDenied = 8,
}

/// The errors rebuilt exactly by the receiver (`strata_server::remote::Named`), by a fixed
/// code: never reuse or renumber one. `Unnamed` (0, also what a detail without the field
/// reads as): the error is rebuilt from its kind and message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
#[non_exhaustive]
pub enum ErrorName {
    Unnamed = 0,
    TableNotFound = 1,
    TableExists = 2,
    TableNotDisabled = 3,
    TableDisabled = 4,
    NamespaceNotFound = 5,
    NamespaceExists = 6,
    NamespaceNotEmpty = 7,
    FamilyNotFound = 8,
    ScannerNotFound = 9,
    InvalidArgument = 10,
    IllegalName = 11,
    IncompatibleValue = 12,
    NotMaster = 13,
}

/// A region the answering server does not serve (`ServiceError::NotServingRegion`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct NotServing {
    #[prost(string, tag = "1")]
    pub table: String,
    #[prost(uint64, tag = "2")]
    pub region: u64,
}

/// An error answer's payload, from which the client rebuilds the service error: the
/// error `name` stands for when it names one and `fields` fit it, else `not_serving` when
/// present, else a remote error of `kind` with `message`.
///
/// Field 4 was the name as text (`"TableExists"`), up to protocol version 2: never reuse
/// its number.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ErrorDetail {
    #[prost(enumeration = "ErrorKind", tag = "1")]
    pub kind: i32,
    /// The error's display text, exactly as the owner formatted it.
    #[prost(string, tag = "2")]
    pub message: String,
    #[prost(message, optional, tag = "3")]
    pub not_serving: Option<NotServing>,
    /// For the errors rebuilt exactly (`strata_server::remote::error_to_parts`): their
    /// fields as text, in that order.
    #[prost(string, repeated, tag = "5")]
    pub fields: Vec<String>,
    /// Which error `fields` belong to.
    #[prost(enumeration = "ErrorName", tag = "6")]
    pub name: i32,
}
