//! The range filters: columns of one family, timestamps, values.

use std::ops::Bound;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::column_range::{EndQualifier, StartQualifier};
use pb::value_range::{EndValue, StartValue};

use super::FilterCell;

/// A byte-string range; unset ends are unbounded (the unset start is the empty string,
/// closed, which is the same thing for byte strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteRange {
    start: Bound<Bytes>,
    end: Bound<Bytes>,
}

impl ByteRange {
    /// True when `value` lies in the range, comparing bytewise.
    pub fn contains(&self, value: &[u8]) -> bool {
        let above_start = match &self.start {
            Bound::Included(s) => value >= &s[..],
            Bound::Excluded(s) => value > &s[..],
            Bound::Unbounded => true,
        };
        let below_end = match &self.end {
            Bound::Included(e) => value <= &e[..],
            Bound::Excluded(e) => value < &e[..],
            Bound::Unbounded => true,
        };
        above_start && below_end
    }
}

/// `column_range_filter`: cells of one family whose qualifier lies in a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRange {
    family: String,
    qualifiers: ByteRange,
}

impl ColumnRange {
    /// The family name is required; the error says so.
    pub fn new(range: &pb::ColumnRange) -> Result<ColumnRange, String> {
        if range.family_name.is_empty() {
            return Err("family_name is required".into());
        }
        let start = match &range.start_qualifier {
            Some(StartQualifier::StartQualifierClosed(q)) => Bound::Included(q.clone()),
            Some(StartQualifier::StartQualifierOpen(q)) => Bound::Excluded(q.clone()),
            None => Bound::Unbounded,
        };
        let end = match &range.end_qualifier {
            Some(EndQualifier::EndQualifierClosed(q)) => Bound::Included(q.clone()),
            Some(EndQualifier::EndQualifierOpen(q)) => Bound::Excluded(q.clone()),
            None => Bound::Unbounded,
        };
        Ok(ColumnRange {
            family: range.family_name.clone(),
            qualifiers: ByteRange { start, end },
        })
    }

    pub fn contains(&self, cell: &FilterCell) -> bool {
        cell.family == self.family && self.qualifiers.contains(&cell.qualifier)
    }
}

/// `value_range_filter`: cells whose value lies in a range.
pub fn value_range(range: &pb::ValueRange) -> ByteRange {
    let start = match &range.start_value {
        Some(StartValue::StartValueClosed(v)) => Bound::Included(v.clone()),
        Some(StartValue::StartValueOpen(v)) => Bound::Excluded(v.clone()),
        None => Bound::Unbounded,
    };
    let end = match &range.end_value {
        Some(EndValue::EndValueClosed(v)) => Bound::Included(v.clone()),
        Some(EndValue::EndValueOpen(v)) => Bound::Excluded(v.clone()),
        None => Bound::Unbounded,
    };
    ByteRange { start, end }
}

/// `timestamp_range_filter`: `[start, end)` in microseconds, end 0 meaning unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimestampRange {
    start: i64,
    end: Option<i64>,
}

impl TimestampRange {
    /// Bounds must be non-negative multiples of 1000: Strata keeps milliseconds, and
    /// Bigtable rejects finer precision on millisecond tables.
    pub fn new(range: &pb::TimestampRange) -> Result<TimestampRange, String> {
        let (start, end) = (range.start_timestamp_micros, range.end_timestamp_micros);
        if start < 0 || end < 0 {
            return Err(format!(
                "timestamps must not be negative (start {start}, end {end})"
            ));
        }
        if start % 1000 != 0 || end % 1000 != 0 {
            return Err(format!(
                "the maximum precision allowed is milliseconds (start {start}, end {end})"
            ));
        }
        Ok(TimestampRange {
            start,
            end: (end != 0).then_some(end),
        })
    }

    pub fn contains(&self, timestamp_micros: i64) -> bool {
        timestamp_micros >= self.start && self.end.is_none_or(|end| timestamp_micros < end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(family: &str, qualifier: &'static [u8]) -> FilterCell {
        FilterCell {
            family: family.into(),
            qualifier: Bytes::from_static(qualifier),
            timestamp_micros: 0,
            value: Bytes::new(),
            labels: Vec::new(),
        }
    }

    #[test]
    fn column_range_bounds() {
        let range = ColumnRange::new(&pb::ColumnRange {
            family_name: "f".into(),
            start_qualifier: Some(StartQualifier::StartQualifierOpen("b".into())),
            end_qualifier: Some(EndQualifier::EndQualifierClosed("d".into())),
        })
        .unwrap();
        let hits: Vec<bool> = [b"a" as &'static [u8], b"b", b"ba", b"c", b"d", b"da"]
            .into_iter()
            .map(|q| range.contains(&cell("f", q)))
            .collect();
        assert_eq!(hits, [false, false, true, true, true, false]);
        assert!(!range.contains(&cell("g", b"c")));
    }

    #[test]
    fn column_range_defaults_to_the_whole_family() {
        let range = ColumnRange::new(&pb::ColumnRange {
            family_name: "f".into(),
            ..Default::default()
        })
        .unwrap();
        assert!(range.contains(&cell("f", b"")));
        assert!(range.contains(&cell("f", b"\xff\xff")));
        assert!(!range.contains(&cell("ff", b"")));
    }

    #[test]
    fn column_range_requires_a_family() {
        let err = ColumnRange::new(&pb::ColumnRange::default()).unwrap_err();
        assert!(err.contains("family_name"));
    }

    #[test]
    fn value_range_bounds() {
        let range = value_range(&pb::ValueRange {
            start_value: Some(StartValue::StartValueClosed("b".into())),
            end_value: Some(EndValue::EndValueOpen("d".into())),
        });
        assert!(!range.contains(b"a"));
        assert!(range.contains(b"b"));
        assert!(range.contains(b"c\xff"));
        assert!(!range.contains(b"d"));
        let unbounded = value_range(&pb::ValueRange::default());
        assert!(unbounded.contains(b""));
        assert!(unbounded.contains(b"\xff"));
    }

    #[test]
    fn timestamp_range_is_half_open_and_zero_end_is_unbounded() {
        let range = TimestampRange::new(&pb::TimestampRange {
            start_timestamp_micros: 2000,
            end_timestamp_micros: 4000,
        })
        .unwrap();
        assert!(!range.contains(1000));
        assert!(range.contains(2000));
        assert!(range.contains(3000));
        assert!(!range.contains(4000));
        let open = TimestampRange::new(&pb::TimestampRange {
            start_timestamp_micros: 1000,
            end_timestamp_micros: 0,
        })
        .unwrap();
        assert!(open.contains(i64::MAX));
        assert!(!open.contains(0));
    }

    #[test]
    fn timestamp_range_rejects_sub_millisecond_and_negative_bounds() {
        let bad = |start, end| {
            TimestampRange::new(&pb::TimestampRange {
                start_timestamp_micros: start,
                end_timestamp_micros: end,
            })
            .unwrap_err()
        };
        assert!(bad(1, 0).contains("milliseconds"));
        assert!(bad(0, 1500).contains("milliseconds"));
        assert!(bad(-1000, 0).contains("negative"));
    }
}
