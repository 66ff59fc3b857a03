//! HBase's "get scan": a scan whose start and stop rows are equal (and not empty) reads
//! exactly that row, forward or reversed, instead of nothing. HBase's client keeps this
//! from its old `Scan(start, stop)` API, so every protocol that builds a scan from two row
//! bounds (Thrift, REST, the native RPC) gets it; the service applies it to every scan it
//! is handed, so each front end behaves the same.

use bytes::Bytes;
use strata_engine::Scan;

/// True if `scan` names one row by equal, non-empty start and stop rows.
pub(crate) fn is_get_scan(scan: &Scan) -> bool {
    !scan.start_row.is_empty() && scan.start_row == scan.stop_row
}

/// Rewrites a get scan as the forward scan of its one row (`[row, row\0)`): a reversed
/// scan's exclusive low bound cannot name "just below `row`", and one row reads the same
/// in either direction. Any other scan is left alone. Filters that depend on the direction
/// (PrefixFilter, InclusiveStopFilter) must be told the requested direction before this.
pub(crate) fn as_forward_if_get(scan: &mut Scan) {
    if !is_get_scan(scan) {
        return;
    }
    let mut stop = scan.start_row.to_vec();
    stop.push(0);
    scan.stop_row = Bytes::from(stop);
    scan.reversed = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bounds_become_a_forward_scan_of_that_row() {
        for reversed in [false, true] {
            let mut scan = Scan::new().range("r", "r").reversed(reversed);
            as_forward_if_get(&mut scan);
            assert_eq!(scan.start_row, Bytes::from_static(b"r"));
            assert_eq!(scan.stop_row, Bytes::from_static(b"r\0"));
            assert!(!scan.reversed, "reversed={reversed}");
        }
    }

    #[test]
    fn other_scans_are_left_alone() {
        let mut open = Scan::new().reversed(true);
        as_forward_if_get(&mut open);
        assert!(open.reversed && open.stop_row.is_empty());
        let mut range = Scan::new().range("b", "a").reversed(true);
        as_forward_if_get(&mut range);
        assert!(range.reversed);
        assert_eq!(range.stop_row, Bytes::from_static(b"a"));
    }
}
