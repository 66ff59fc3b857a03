//! The native scanners: each wraps one of the service's scanners with what HBase's scan
//! protocol adds (the call sequence, the row limit, the region it is confined to).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_server::names::TableName;

/// Where a scan ends, as seen from one region.
#[derive(Debug, Clone)]
pub struct Cut {
    pub reversed: bool,
    pub region_start: Bytes,
    pub region_end: Bytes,
    pub stop: Bytes,
    pub include_stop: bool,
    /// The start row, when the client asked to leave it out.
    pub skip: Option<Bytes>,
}

/// Where a row falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Inside,
    /// Before this region in scan order (a reversed scan started above the region's end):
    /// a row of the next region, left out.
    BeforeRegion,
    /// Beyond this region: the client goes on in the next one.
    PastRegion,
    /// Beyond the scan's stop row: the scan is done.
    PastStop,
}

impl Cut {
    pub fn place(&self, row: &[u8]) -> Place {
        let stop = &self.stop[..];
        if self.reversed {
            if !stop.is_empty() && (row < stop || (row == stop && !self.include_stop)) {
                return Place::PastStop;
            }
            if !self.region_end.is_empty() && row >= &self.region_end[..] {
                return Place::BeforeRegion;
            }
            if row < &self.region_start[..] {
                return Place::PastRegion;
            }
        } else {
            if !stop.is_empty() && (row > stop || (row == stop && !self.include_stop)) {
                return Place::PastStop;
            }
            if !self.region_end.is_empty() && row >= &self.region_end[..] {
                return Place::PastRegion;
            }
        }
        Place::Inside
    }
}

/// What a scan does with the next row the service scanner gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Leave the row out and read on (the excluded start row).
    Skip,
    /// Answer the row.
    Take,
    /// The region is done; the client goes on in the next one.
    EndRegion,
    /// The scan is done.
    EndScan,
}

impl Cut {
    /// Decides on `row`, the next row in scan order; `started` records whether a row was
    /// already looked at (the start row is left out only as the first row).
    pub fn admit(&self, started: &mut bool, row: &[u8]) -> Admit {
        if let Some(skip) = &self.skip {
            if !*started && row == &skip[..] {
                return Admit::Skip;
            }
        }
        *started = true;
        match self.place(row) {
            Place::Inside => Admit::Take,
            Place::BeforeRegion => Admit::Skip,
            Place::PastRegion => Admit::EndRegion,
            Place::PastStop => Admit::EndScan,
        }
    }
}

/// One open native scanner.
#[derive(Debug)]
pub struct NativeScanner {
    pub table: TableName,
    /// The service scanner it reads from.
    pub inner: u64,
    pub cut: Cut,
    /// The `next_call_seq` the next call must carry.
    pub next_call_seq: u64,
    /// Rows still allowed by the scan's limit (`None`: no limit).
    pub rows_left: Option<u64>,
    /// Whether the start row has been passed (for `skip`).
    pub started: bool,
    /// Bytes of results one call returns at most (the client's `maxResultSize`).
    pub max_result_bytes: u64,
    /// Whether a row larger than that may be returned in parts.
    pub allow_partial: bool,
}

/// Every open native scanner of one RPC server, by id.
pub struct ScannerTable {
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Mutex<NativeScanner>>>>,
    lease: Duration,
}

impl ScannerTable {
    pub fn new(lease: Duration) -> ScannerTable {
        ScannerTable {
            next_id: AtomicU64::new(1),
            open: Mutex::new(HashMap::new()),
            lease,
        }
    }

    /// The lease the client is told, in milliseconds.
    pub fn lease_ms(&self) -> u32 {
        u32::try_from(self.lease.as_millis()).unwrap_or(u32::MAX)
    }

    /// Registers a scanner; `is_open` tells which inner scanners still live, so entries
    /// whose inner scanner expired are dropped here rather than kept forever.
    pub fn insert(&self, scanner: NativeScanner, is_open: impl Fn(u64) -> bool) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut open = self.open.lock();
        open.retain(|_, s| s.try_lock().is_none_or(|s| is_open(s.inner)));
        open.insert(id, Arc::new(Mutex::new(scanner)));
        id
    }

    pub fn get(&self, id: u64) -> Option<Arc<Mutex<NativeScanner>>> {
        self.open.lock().get(&id).cloned()
    }

    pub fn remove(&self, id: u64) -> Option<Arc<Mutex<NativeScanner>>> {
        self.open.lock().remove(&id)
    }

    pub fn len(&self) -> usize {
        self.open.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(reversed: bool, region: (&str, &str), stop: &str, include_stop: bool) -> Cut {
        Cut {
            reversed,
            region_start: Bytes::copy_from_slice(region.0.as_bytes()),
            region_end: Bytes::copy_from_slice(region.1.as_bytes()),
            stop: Bytes::copy_from_slice(stop.as_bytes()),
            include_stop,
            skip: None,
        }
    }

    #[test]
    fn forward_rows_end_at_the_region_end_or_the_stop_row() {
        let c = cut(false, ("b", "d"), "", false);
        assert_eq!(c.place(b"b"), Place::Inside);
        assert_eq!(c.place(b"d"), Place::PastRegion);
        let c = cut(false, ("b", "d"), "c", false);
        assert_eq!(c.place(b"c"), Place::PastStop);
        let c = cut(false, ("b", "d"), "c", true);
        assert_eq!(c.place(b"c"), Place::Inside);
        assert_eq!(c.place(b"c\0"), Place::PastStop);
        let last = cut(false, ("b", ""), "", false);
        assert_eq!(last.place(b"zzz"), Place::Inside);
    }

    #[test]
    fn reversed_rows_end_below_the_region_start_or_at_the_stop_row() {
        let c = cut(true, ("b", "d"), "", false);
        assert_eq!(c.place(b"b"), Place::Inside);
        assert_eq!(c.place(b"a"), Place::PastRegion);
        let c = cut(true, ("b", "d"), "c", false);
        assert_eq!(c.place(b"c"), Place::PastStop);
        let c = cut(true, ("b", "d"), "c", true);
        assert_eq!(c.place(b"c"), Place::Inside);
        let first = cut(true, ("", "d"), "", false);
        assert_eq!(first.place(b""), Place::Inside);
    }

    #[test]
    fn reversed_rows_at_or_above_the_region_end_are_left_out() {
        let c = cut(true, ("b", "d"), "", false);
        assert_eq!(c.place(b"d"), Place::BeforeRegion);
        assert_eq!(c.place(b"zz"), Place::BeforeRegion);
        assert_eq!(c.place(b"c\xff"), Place::Inside);
        let mut started = false;
        assert_eq!(c.admit(&mut started, b"d"), Admit::Skip);
        assert_eq!(c.admit(&mut started, b"c"), Admit::Take);
        assert_eq!(c.admit(&mut started, b"a"), Admit::EndRegion);
        // Below the stop row the scan ends, whichever region the row is in.
        let c = cut(true, ("b", "d"), "e", false);
        assert_eq!(c.place(b"d"), Place::PastStop);
    }
}
