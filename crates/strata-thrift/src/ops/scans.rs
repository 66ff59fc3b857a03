//! Scanners. The service's registry owns every scanner (ids, leases, the per-connection
//! cap, HBase's `batchSize` cutting wide rows into parts); this side converts Thrift's
//! requests and replies: the id travels as an `i32`, and `sortColumns` picks the shape of
//! each result.

use bytes::Bytes;
use strata_engine::Scan;
use strata_server::{ScannerLookup, ScannerOptions, ScannerOwner, Service};

use super::{before, table_name};
use crate::columns;
use crate::connection_scope::ConnectionId;
use crate::failure::{from_service, CallResult, Failure};
use crate::gen::volo_gen::hbase::{TRowResult, TScan};
use crate::results::row_results;

/// What a Thrift call asks a scanner to do.
#[derive(Debug, Default)]
pub struct ScanRequest {
    pub start: Bytes,
    pub stop: Bytes,
    pub columns: Option<Vec<Bytes>>,
    pub timestamp: Option<i64>,
    pub filter: Option<Bytes>,
    pub sorted: bool,
    pub reversed: bool,
    pub batch: Option<i32>,
    /// TScan's `cacheBlocks`; unset means true (HBase's default).
    pub cache_blocks: Option<bool>,
}

impl ScanRequest {
    /// From a TScan (`scannerOpenWithScan`).
    pub fn from_tscan(s: TScan) -> ScanRequest {
        ScanRequest {
            start: s.start_row.map(|t| t.0).unwrap_or_default(),
            stop: s.stop_row.map(|t| t.0).unwrap_or_default(),
            columns: s.columns.map(|c| c.into_iter().map(|t| t.0).collect()),
            timestamp: s.timestamp,
            filter: s.filter_string.map(|t| t.0),
            sorted: s.sort_columns.unwrap_or(false),
            reversed: s.reversed.unwrap_or(false),
            batch: s.batch_size,
            cache_blocks: s.cache_blocks,
        }
    }

    /// The engine scan this request describes.
    fn scan(&self) -> CallResult<Scan> {
        // Equal start and stop rows (HBase's get scan) are the service's to interpret.
        let mut scan = Scan::new()
            .range(self.start.clone(), self.stop.clone())
            .reversed(self.reversed)
            .cache_blocks(self.cache_blocks.unwrap_or(true));
        scan.columns = columns::selection(self.columns.as_deref());
        if let Some(ts) = self.timestamp {
            scan.time_range = before(ts)?;
        }
        Ok(scan)
    }
}

/// The smallest key above every key starting with `prefix` (empty: no bound).
pub fn prefix_end(prefix: &[u8]) -> Bytes {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Bytes::from(end);
        }
    }
    Bytes::new()
}

/// Opens a scanner charged to connection `owner`; returns its Thrift id.
pub fn open(
    service: &Service,
    table: &[u8],
    req: ScanRequest,
    owner: Option<ConnectionId>,
) -> CallResult<i32> {
    let table = table_name(table)?;
    // A filter string that does not parse is refused with the position of the error
    // (scannerOpenWithScan declares no IllegalArgument, so it reaches the client as a
    // TApplicationException, as in HBase).
    let filter = match &req.filter {
        Some(text) => Some(
            service
                .parse_filter(text)
                .map_err(|e| Failure::illegal(format!("invalid filter string: {e}")))?,
        ),
        None => None,
    };
    let options = ScannerOptions {
        scan: req.scan()?,
        filter,
        // HBase ignores a batchSize of 0 or less: whole rows.
        batch: req.batch.and_then(|b| usize::try_from(b).ok()),
        sorted_columns: req.sorted,
        owner: ScannerOwner::thrift(owner.map(|c| c.0)),
    };
    let id = service
        .scanners()
        .open_scanner_with(&table, options)
        .map_err(from_service)?;
    // The registry's ids stay below 2^31.
    i32::try_from(id).map_err(|_| Failure::io(format!("scanner id {id} does not fit Thrift")))
}

/// Up to `n` further results; empty once the scanner is exhausted.
pub fn next(service: &Service, id: i32, n: i32) -> CallResult<Vec<TRowResult>> {
    // A count of 0 or less reads nothing but still checks the id (and renews its lease).
    let want = usize::try_from(n).unwrap_or(0);
    let next = service
        .scanners()
        .scanner_results(&ScannerLookup::THRIFT, registry_id(id)?, want)
        .map_err(from_service)?;
    // HBase rejects a negative count outright (and returns nothing for 0).
    if n < 0 {
        return Err(Failure::Internal(format!(
            "the number of rows to fetch is {n}"
        )));
    }
    Ok(row_results(&next.results, next.sorted_columns))
}

/// Closes scanner `id`.
pub fn close(service: &Service, id: i32) -> CallResult<()> {
    service
        .scanners()
        .close_scanner_as(&ScannerLookup::THRIFT, registry_id(id)?)
        .map_err(from_service)
}

/// The registry's id for Thrift id `id` (a negative one was never handed out).
fn registry_id(id: i32) -> CallResult<u64> {
    u64::try_from(id).map_err(|_| Failure::illegal(format!("scanner ID {id} is invalid")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use strata_runtime::clock::ManualClock;

    /// A service on a manual clock with table `t`, each connection allowed two scanners.
    fn service_with_table(dir: &tempfile::TempDir) -> (Arc<Service>, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(0));
        let mut options = strata_server::ServiceOptions::new(dir.path());
        options.engine.clock = clock.clone();
        options.limits.max_scanners_per_client = 2;
        let service = Service::open(options).unwrap();
        let table = strata_server::TableName::parse("t").unwrap();
        let family = strata_engine::FamilyOptions::new("cf");
        service
            .admin()
            .create_table(&table, vec![family], vec![])
            .unwrap();
        (service, clock)
    }

    #[test]
    fn each_connection_holds_at_most_its_share_of_scanners() {
        let dir = tempfile::tempdir().unwrap();
        let (service, _clock) = service_with_table(&dir);
        let open = |owner| open(&service, b"t", ScanRequest::default(), owner);
        let (a, b) = (Some(ConnectionId(1)), Some(ConnectionId(2)));
        let first = open(a).unwrap();
        open(a).unwrap();
        let refused = format!("{:?}", open(a).unwrap_err());
        assert!(refused.contains("max_scanners_per_client"), "{refused}");
        open(b).unwrap();
        open(None).unwrap();
        open(None).unwrap();
        open(None).unwrap();
        close(&service, first).unwrap();
        open(a).unwrap();
        assert!(open(a).is_err());
    }

    #[test]
    fn a_scanner_past_its_lease_is_invalid() {
        let dir = tempfile::tempdir().unwrap();
        let (service, clock) = service_with_table(&dir);
        let request = || ScanRequest {
            batch: Some(1),
            ..ScanRequest::default()
        };
        let kept = open(&service, b"t", request(), None).unwrap();
        open(&service, b"t", request(), None).unwrap();
        assert_eq!(
            service.scanners().expire_idle_scanners(),
            0,
            "both still open"
        );
        clock.advance(service.scanners().scanner_lease().as_millis() as i64);
        assert_eq!(service.scanners().expire_idle_scanners(), 2);
        assert!(next(&service, kept, 1).is_err(), "its id is invalid now");
        assert!(next(&service, kept, 0).is_err(), "even for no rows");
        assert!(close(&service, kept).is_err());
    }

    #[test]
    fn cache_blocks_follows_the_tscan_and_defaults_to_true() {
        let scan = |cache_blocks| {
            let tscan = TScan {
                cache_blocks,
                ..TScan::default()
            };
            ScanRequest::from_tscan(tscan).scan().unwrap().cache_blocks
        };
        assert!(scan(None), "unset: HBase caches");
        assert!(scan(Some(true)));
        assert!(!scan(Some(false)));
    }

    #[test]
    fn prefix_end_skips_trailing_ff() {
        assert_eq!(prefix_end(b"ab"), Bytes::from_static(b"ac"));
        assert_eq!(prefix_end(b"a\xff"), Bytes::from_static(b"b"));
        assert_eq!(prefix_end(b"\xff\xff"), Bytes::new());
        assert_eq!(prefix_end(b""), Bytes::new());
    }
}
