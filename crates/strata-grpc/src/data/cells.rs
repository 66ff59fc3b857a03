//! Conversions between Bigtable's cells and Strata's: timestamps (Bigtable's microseconds,
//! Strata's HBase milliseconds) and family names (Bigtable's strings, HBase's bytes).

use bytes::Bytes;
use strata_engine::{Cell, RowResult, LATEST_TIMESTAMP};
use tonic::Status;

use crate::row_filter::FilterCell;

/// Bigtable's "server-assigned timestamp" in a SetCell.
pub const SERVER_TIMESTAMP: i64 = -1;

/// Microseconds per millisecond.
const MICROS: i64 = 1000;

/// A SetCell timestamp as Strata's milliseconds: -1 is the server's time (the engine's
/// `LATEST_TIMESTAMP`); anything else must be a non-negative multiple of 1000, because
/// Strata stores milliseconds (as Bigtable does for tables of MILLIS granularity).
pub fn set_cell_millis(field: &str, micros: i64) -> Result<i64, Status> {
    if micros == SERVER_TIMESTAMP {
        return Ok(LATEST_TIMESTAMP);
    }
    exact_millis(field, micros)
}

/// A non-negative microsecond timestamp that is a whole number of milliseconds, as
/// milliseconds.
pub fn exact_millis(field: &str, micros: i64) -> Result<i64, Status> {
    if micros < 0 {
        return Err(Status::invalid_argument(format!(
            "{field}: timestamp {micros} is negative"
        )));
    }
    if micros % MICROS != 0 {
        return Err(Status::invalid_argument(format!(
            "{field}: timestamp {micros} is not a multiple of 1000 microseconds \
             (Strata stores milliseconds: timestamp granularity mismatch)"
        )));
    }
    Ok(micros / MICROS)
}

/// A time-range bound in microseconds as milliseconds, rounding up: a range bound need not
/// be a whole millisecond, and `[start, end)` in microseconds holds exactly the
/// millisecond timestamps in `[ceil(start), ceil(end))`.
pub fn bound_millis(micros: i64) -> i64 {
    micros.div_euclid(MICROS) + i64::from(micros.rem_euclid(MICROS) != 0)
}

/// Milliseconds as Bigtable's microseconds (saturating: HBase's largest timestamps do not
/// fit).
pub fn micros(millis: i64) -> i64 {
    millis.saturating_mul(MICROS)
}

/// A family name as bytes; Bigtable names must be non-empty. `field` names the request field.
pub fn family_bytes(field: &str, family: &str) -> Result<Bytes, Status> {
    if family.is_empty() {
        return Err(Status::invalid_argument(format!(
            "{field}: family_name must not be empty"
        )));
    }
    Ok(Bytes::copy_from_slice(family.as_bytes()))
}

/// An engine cell as the filters see it. Strata family names are printable ASCII, so the
/// lossy conversion never changes one.
pub fn filter_cell(cell: Cell) -> FilterCell {
    FilterCell {
        family: String::from_utf8_lossy(&cell.family).into_owned(),
        qualifier: cell.qualifier,
        timestamp_micros: micros(cell.timestamp),
        value: cell.value,
        labels: Vec::new(),
    }
}

/// A row's cells in Bigtable's order (family, qualifier ascending, newest first), which is
/// also the engine's.
pub fn filter_cells(row: RowResult) -> Vec<FilterCell> {
    row.cells.into_iter().map(filter_cell).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_cell_timestamps_must_be_whole_milliseconds() {
        assert_eq!(set_cell_millis("ts", 1_234_000).unwrap(), 1234);
        assert_eq!(set_cell_millis("ts", 0).unwrap(), 0);
        assert_eq!(set_cell_millis("ts", -1).unwrap(), LATEST_TIMESTAMP);
        let err = set_cell_millis("mutations[2].set_cell.timestamp_micros", 1_234_567).unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(err
            .message()
            .starts_with("mutations[2].set_cell.timestamp_micros:"));
        assert_eq!(
            set_cell_millis("ts", -5).unwrap_err().code(),
            tonic::Code::InvalidArgument
        );
    }

    #[test]
    fn range_bounds_round_up_to_the_next_millisecond() {
        assert_eq!(bound_millis(0), 0);
        assert_eq!(bound_millis(1), 1);
        assert_eq!(bound_millis(999), 1);
        assert_eq!(bound_millis(1000), 1);
        assert_eq!(bound_millis(1001), 2);
        // [1001 µs, 3000 µs) holds the cells at 2 ms only: [2, 3) in milliseconds.
        assert_eq!((bound_millis(1001), bound_millis(3000)), (2, 3));
    }

    #[test]
    fn milliseconds_become_microseconds() {
        assert_eq!(micros(1234), 1_234_000);
        assert_eq!(micros(i64::MAX), i64::MAX);
    }

    #[test]
    fn empty_family_names_are_refused() {
        assert!(family_bytes("f", "").is_err());
        assert_eq!(family_bytes("f", "cf").unwrap(), Bytes::from_static(b"cf"));
    }
}
