//! [`Scanners`], the service's scanner calls for every front end: opening checks the limits
//! and plans the scan over the table's regions, and the rest goes to the registry
//! (`scanners/`). The embedded API's calls (`open_scanner`, `scanner_next`, `close_scanner`)
//! are the general ones with the embedded owner and whole rows. Unregistered row streams
//! (`scan_rows`) are here too: they are the other way every front end reads many rows.

use std::sync::Arc;
use std::time::Duration;

use strata_engine::{Cell, RowResult, Scan};

use crate::access::AccessControl;
use crate::directory::TableDirectory;
use crate::error::Result;
use crate::filter::Filter;
use crate::get_scan;
use crate::limits::Limits;
use crate::metrics::{Operation, RequestMetrics};
use crate::names::TableName;
use crate::remote::Origin;
use crate::row_stream::RowStream;
use crate::scanners::{CursorPlan, ScannerLookup, ScannerOptions, ScannerRegistry, ScannerResults};
use crate::serving::scan_plan;

/// Scans for every front end: scanners registered under a lease, and one-pass row streams.
pub struct Scanners {
    directory: Arc<TableDirectory>,
    registry: ScannerRegistry,
    metrics: Arc<RequestMetrics>,
    /// The open-scanner limits, overall and per owner.
    limits: Limits,
    /// Asked before a scan starts (`access/`).
    access: Arc<AccessControl>,
}

impl Scanners {
    pub(crate) fn new(
        directory: Arc<TableDirectory>,
        registry: ScannerRegistry,
        metrics: Arc<RequestMetrics>,
        limits: Limits,
        access: Arc<AccessControl>,
    ) -> Scanners {
        Scanners {
            directory,
            registry,
            metrics,
            limits,
            access,
        }
    }

    /// Closes every scanner (the service is closing).
    pub(crate) fn clear(&self) {
        self.registry.clear();
    }

    /// Opens a scanner over `table`; returns its id.
    pub fn open_scanner(&self, table: &TableName, scan: Scan) -> Result<u64> {
        self.open_scanner_with(table, ScannerOptions::embedded(scan, None))
    }

    /// Opens a scanner whose rows pass through `filter` (HBase's filter language), applied
    /// after the versions of each row are chosen, as HBase does.
    pub fn open_filtered_scanner(
        &self,
        table: &TableName,
        scan: Scan,
        filter: Option<Filter>,
    ) -> Result<u64> {
        self.open_scanner_with(table, ScannerOptions::embedded(scan, filter))
    }

    /// Opens a scanner for any front end: checks the open-scanner limits (overall and the
    /// owner's), then registers it; returns its id.
    pub fn open_scanner_with(&self, table: &TableName, mut options: ScannerOptions) -> Result<u64> {
        let _timer = self.metrics.start(Operation::OpenScanner, Some(table));
        self.access
            .authorize_read("scan", table, &mut options.scan.columns)?;
        self.registry.expire_idle();
        self.registry.check_room(&self.limits, options.owner)?;
        options.batch = options.batch.filter(|b| *b > 0);
        let plan = self.plan_scan(table, &mut options)?;
        Ok(self.registry.insert(table.clone(), &options, plan))
    }

    /// What a scanner of `options` reads: the table's regions in scan order, and the filter
    /// set up to see every version the family stores.
    fn plan_scan(&self, table: &TableName, options: &mut ScannerOptions) -> Result<CursorPlan> {
        let state = self.directory.table_checked(table, |state| {
            state.check_enabled()?;
            options
                .scan
                .columns
                .keys()
                .try_for_each(|f| state.check_family(f))
        })?;
        let mut regions = scan_plan(&self.directory, &state, Origin::Client, |_| true)?;
        let mut scan = std::mem::replace(&mut options.scan, Scan::new());
        // The filter sees the direction the client asked for, even of a get scan.
        if let Some(f) = options.filter.as_mut() {
            f.set_reversed(scan.reversed);
        }
        get_scan::as_forward_if_get(&mut scan);
        if scan.reversed {
            regions = regions.into_iter().rev().collect();
        }
        let versions_after_filter = scan.max_versions;
        let mut filter = options.filter.take();
        let limit = scan.limit;
        if let Some(f) = filter.as_mut() {
            // The limit counts rows that pass the filter, so a region cannot stop early.
            scan.limit = None;
            f.set_versions_after_filter(versions_after_filter);
            scan.max_versions = u32::MAX; // the family's VERSIONS caps it
        }
        Ok(CursorPlan {
            scan,
            limit,
            filter,
            versions_after_filter,
            regions,
            batch: options.batch,
        })
    }

    /// Up to `max_rows` further rows of embedded scanner `id` (empty when it is exhausted).
    pub fn scanner_next(&self, id: u64, max_rows: usize) -> Result<Vec<RowResult>> {
        let next = self.scanner_results(&ScannerLookup::EMBEDDED, id, max_rows.max(1))?;
        Ok(next.results)
    }

    /// Up to `max_results` further results of scanner `id`: rows, or parts of rows when the
    /// scanner has a batch. Empty when it is exhausted.
    pub fn scanner_results(
        &self,
        lookup: &ScannerLookup<'_>,
        id: u64,
        max_results: usize,
    ) -> Result<ScannerResults> {
        let _timer = self.metrics.start(Operation::ScannerNext, None);
        self.directory.check_serving()?;
        self.registry.results(lookup, id, max_results, None)
    }

    /// Like `scanner_results`, but answers early, with the results found so far (maybe
    /// none) and `out_of_time` set, once the filter has skipped rows for `budget`. HBase's
    /// native scan protocol answers such a fetch as a heartbeat.
    pub fn scanner_results_within(
        &self,
        lookup: &ScannerLookup<'_>,
        id: u64,
        max_results: usize,
        budget: Duration,
    ) -> Result<ScannerResults> {
        let _timer = self.metrics.start(Operation::ScannerNext, None);
        self.directory.check_serving()?;
        self.registry.results(lookup, id, max_results, Some(budget))
    }

    /// Up to `max_cells` further cells of scanner `id` (`None`: the scanner's batch, or
    /// every cell of the next row without one), from at most `max_rows` rows (0: any
    /// number). HBase REST hands out cells this way; a row may span fetches.
    pub fn scanner_cells(
        &self,
        lookup: &ScannerLookup<'_>,
        id: u64,
        max_cells: Option<usize>,
        max_rows: usize,
    ) -> Result<Vec<Cell>> {
        let _timer = self.metrics.start(Operation::ScannerNext, None);
        self.directory.check_serving()?;
        self.registry.cells(lookup, id, max_cells, max_rows)
    }

    /// Closes embedded scanner `id`.
    pub fn close_scanner(&self, id: u64) -> Result<()> {
        self.close_scanner_as(&ScannerLookup::EMBEDDED, id)
    }

    /// Closes scanner `id`, as `lookup` sees it.
    pub fn close_scanner_as(&self, lookup: &ScannerLookup<'_>, id: u64) -> Result<()> {
        self.registry.remove(lookup, id)
    }

    /// Whether scanner `id` is still open (not closed, not expired).
    pub fn scanner_is_open(&self, id: u64) -> bool {
        self.registry.contains(id)
    }

    /// Number of open scanners.
    pub fn open_scanner_count(&self) -> usize {
        self.registry.count()
    }

    /// Closes every scanner idle longer than the lease; returns how many. The registry's
    /// own thread does this periodically; a caller may force it.
    pub fn expire_idle_scanners(&self) -> usize {
        self.registry.expire_idle()
    }

    /// The scanner lease: how long a scanner may sit idle.
    pub fn scanner_lease(&self) -> Duration {
        self.registry.lease()
    }

    /// Streams the rows of `scan` without registering a scanner (see `row_stream/`).
    pub fn scan_rows(&self, table: &TableName, mut scan: Scan) -> Result<RowStream> {
        self.access
            .authorize_read("scan", table, &mut scan.columns)?;
        crate::row_stream::RowStream::open(&self.directory, table, scan)
    }
}
