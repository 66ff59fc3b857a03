//! What a front end asks of the registry: the scanner to open, who looks one up by id, and
//! what a fetch returns.

use strata_engine::{RowResult, Scan};

use super::{ScannerOwner, ScannerProtocol};
use crate::filter::Filter;
use crate::names::TableName;

/// What a scanner reads and for whom.
pub struct ScannerOptions {
    pub scan: Scan,
    /// HBase's filter language, applied after the versions of each row are chosen.
    pub filter: Option<Filter>,
    /// Most cells per result: a wider row comes back in parts (HBase's `Scan.setBatch`).
    /// `None` or 0 returns whole rows.
    pub batch: Option<usize>,
    /// Thrift's `sortColumns`, kept for the adapter to shape each batch of results.
    pub sorted_columns: bool,
    pub owner: ScannerOwner,
}

impl ScannerOptions {
    /// Whole rows of `scan` for the embedded API.
    pub fn embedded(scan: Scan, filter: Option<Filter>) -> ScannerOptions {
        ScannerOptions {
            scan,
            filter,
            batch: None,
            sorted_columns: false,
            owner: ScannerOwner::EMBEDDED,
        }
    }
}

/// Who looks a scanner up by id: a scanner is found only through the protocol that opened
/// it, and, when `table` is given, only under its own table (REST's URLs name it).
#[derive(Debug, Clone, Copy)]
pub struct ScannerLookup<'a> {
    pub protocol: ScannerProtocol,
    pub table: Option<&'a TableName>,
}

impl ScannerLookup<'_> {
    pub const EMBEDDED: ScannerLookup<'static> = ScannerLookup {
        protocol: ScannerProtocol::Embedded,
        table: None,
    };
    pub const THRIFT: ScannerLookup<'static> = ScannerLookup {
        protocol: ScannerProtocol::Thrift,
        table: None,
    };
    pub const HBASE_RPC: ScannerLookup<'static> = ScannerLookup {
        protocol: ScannerProtocol::HbaseRpc,
        table: None,
    };

    pub(crate) fn may_see(&self, protocol: ScannerProtocol, table: &TableName) -> bool {
        protocol == self.protocol && self.table.is_none_or(|t| t == table)
    }
}

/// Results of one fetch, with how the owner asked to see them.
#[derive(Debug)]
pub struct ScannerResults {
    pub results: Vec<RowResult>,
    pub sorted_columns: bool,
    /// The fetch stopped because its time ran out while the filter skipped rows, not
    /// because the scan ended (see `Scanners::scanner_results_within`).
    pub out_of_time: bool,
}
