//! A ReadRows row set as sorted, disjoint, half-open key ranges, so that duplicate keys and
//! overlapping ranges never return a row twice and rows come out in key order.

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use strata_engine::Scan;
use tonic::Status;

/// Rows `start <= key < end`; `end: None` is unbounded (an empty `start` is the table start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    pub start: Bytes,
    pub end: Option<Bytes>,
}

/// The smallest key after `key`: `key` followed by a zero byte.
fn successor(key: &[u8]) -> Bytes {
    let mut next = Vec::with_capacity(key.len() + 1);
    next.extend_from_slice(key);
    next.push(0);
    next.into()
}

impl KeyRange {
    /// Every row.
    pub fn all() -> Self {
        KeyRange {
            start: Bytes::new(),
            end: None,
        }
    }

    /// Exactly row `key`.
    pub fn point(key: &[u8]) -> Self {
        KeyRange {
            start: Bytes::copy_from_slice(key),
            end: Some(successor(key)),
        }
    }

    /// A Bigtable RowRange; unset and empty keys are unbounded.
    pub fn from_proto(range: &pb::RowRange) -> Self {
        use pb::row_range::{EndKey, StartKey};
        let start = match &range.start_key {
            Some(StartKey::StartKeyClosed(k)) => k.clone(),
            Some(StartKey::StartKeyOpen(k)) if !k.is_empty() => successor(k),
            _ => Bytes::new(),
        };
        let end = match &range.end_key {
            Some(EndKey::EndKeyOpen(k)) if !k.is_empty() => Some(k.clone()),
            Some(EndKey::EndKeyClosed(k)) if !k.is_empty() => Some(successor(k)),
            _ => None,
        };
        KeyRange { start, end }
    }

    /// True if the range holds no key (its end is at or before its start).
    pub fn is_empty(&self) -> bool {
        self.end.as_ref().is_some_and(|end| end <= &self.start)
    }

    /// The one row key of a single-row range, if it is one.
    pub fn single_key(&self) -> Option<&Bytes> {
        let end = self.end.as_ref()?;
        (end.len() == self.start.len() + 1 && end.starts_with(&self.start) && end.ends_with(&[0]))
            .then_some(&self.start)
    }

    /// True if `key` is in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_ref() && self.end.as_ref().is_none_or(|end| key < end.as_ref())
    }

    /// True if `key` is below the range (a reversed scan is past it).
    pub fn is_above(&self, key: &[u8]) -> bool {
        key < self.start.as_ref()
    }

    /// The engine scan covering the range. A reversed scan's bounds are an inclusive high
    /// row and an exclusive low row, which cannot express `start <= key < end` exactly; the
    /// scan covers a little more and the reader drops the rows outside with `contains`.
    /// Every stored version is read (Bigtable has no version limit but GC rules and
    /// filters).
    pub fn scan(&self, reversed: bool) -> Scan {
        let end = self.end.clone().unwrap_or_default();
        let every_version = Scan::new().versions(u32::MAX);
        if !reversed {
            return every_version.range(self.start.clone(), end);
        }
        every_version.range(end, below(&self.start)).reversed(true)
    }
}

/// A key below `key` such that no key lies strictly between it and `key`, when there is one
/// (`key` ends with a zero byte); otherwise a key a little lower. Empty stays empty
/// (unbounded).
fn below(key: &[u8]) -> Bytes {
    match key.split_last() {
        None => Bytes::new(),
        Some((0, rest)) => Bytes::copy_from_slice(rest),
        Some((last, rest)) => {
            let mut lower = rest.to_vec();
            lower.push(last - 1);
            lower.into()
        }
    }
}

/// The ranges a ReadRows request reads, sorted by key and disjoint (ascending; the reader
/// walks them backwards for a reversed read). No row set, or an empty one, is the whole
/// table; a row set whose keys and ranges are all empty reads nothing. A range whose start
/// key is above its end key is INVALID_ARGUMENT, as in Bigtable (equal keys are merely
/// empty).
pub fn normalize(rows: Option<&pb::RowSet>) -> Result<Vec<KeyRange>, Status> {
    let Some(set) = rows.filter(|s| !s.row_keys.is_empty() || !s.row_ranges.is_empty()) else {
        return Ok(vec![KeyRange::all()]);
    };
    for (i, range) in set.row_ranges.iter().enumerate() {
        check_order(i, range)?;
    }
    let mut ranges: Vec<KeyRange> = set
        .row_keys
        .iter()
        .filter(|k| !k.is_empty())
        .map(|k| KeyRange::point(k))
        .chain(set.row_ranges.iter().map(KeyRange::from_proto))
        .filter(|r| !r.is_empty())
        .collect();
    ranges.sort_by(|a, b| a.start.cmp(&b.start));
    Ok(merge_sorted(ranges))
}

fn check_order(i: usize, range: &pb::RowRange) -> Result<(), Status> {
    use pb::row_range::{EndKey, StartKey};
    let start = match &range.start_key {
        Some(StartKey::StartKeyClosed(k) | StartKey::StartKeyOpen(k)) => k,
        None => return Ok(()),
    };
    let end = match &range.end_key {
        Some(EndKey::EndKeyClosed(k) | EndKey::EndKeyOpen(k)) => k,
        None => return Ok(()),
    };
    if start.is_empty() || end.is_empty() || start <= end {
        return Ok(());
    }
    Err(Status::invalid_argument(format!(
        "rows.row_ranges[{i}]: the start key must not be above the end key"
    )))
}

/// Merges ranges sorted by start that overlap or touch.
fn merge_sorted(ranges: Vec<KeyRange>) -> Vec<KeyRange> {
    let mut merged: Vec<KeyRange> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if last.end.as_ref().is_none_or(|end| range.start <= *end) => {
                last.end = match (last.end.take(), range.end) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    _ => None,
                };
            }
            _ => merged.push(range),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use pb::row_range::{EndKey, StartKey};

    fn b(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    fn range(start: Option<StartKey>, end: Option<EndKey>) -> pb::RowRange {
        pb::RowRange {
            start_key: start,
            end_key: end,
        }
    }

    fn set(keys: &[&str], ranges: Vec<pb::RowRange>) -> pb::RowSet {
        pb::RowSet {
            row_keys: keys.iter().map(|k| b(k)).collect(),
            row_ranges: ranges,
        }
    }

    #[test]
    fn no_row_set_or_an_empty_one_is_the_whole_table() {
        assert_eq!(normalize(None).unwrap(), vec![KeyRange::all()]);
        assert_eq!(
            normalize(Some(&set(&[], vec![]))).unwrap(),
            vec![KeyRange::all()]
        );
        let unbounded = set(&[], vec![range(None, None)]);
        assert_eq!(normalize(Some(&unbounded)).unwrap(), vec![KeyRange::all()]);
    }

    #[test]
    fn duplicate_keys_and_overlapping_ranges_merge() {
        let s = set(
            &["k", "a", "k", "c"],
            vec![
                range(
                    Some(StartKey::StartKeyClosed(b("b"))),
                    Some(EndKey::EndKeyOpen(b("d"))),
                ),
                range(
                    Some(StartKey::StartKeyOpen(b("c"))),
                    Some(EndKey::EndKeyClosed(b("e"))),
                ),
            ],
        );
        let got = normalize(Some(&s)).unwrap();
        assert_eq!(
            got,
            vec![
                KeyRange::point(b"a"),
                KeyRange {
                    start: b("b"),
                    end: Some(b("e\0"))
                },
                KeyRange::point(b"k"),
            ]
        );
        assert_eq!(got[0].single_key(), Some(&b("a")));
        assert_eq!(got[1].single_key(), None);
    }

    #[test]
    fn a_range_inside_another_keeps_the_outer_end() {
        let s = set(
            &["m"],
            vec![
                range(Some(StartKey::StartKeyClosed(b("a"))), None),
                range(
                    Some(StartKey::StartKeyClosed(b("b"))),
                    Some(EndKey::EndKeyOpen(b("c"))),
                ),
            ],
        );
        assert_eq!(
            normalize(Some(&s)).unwrap(),
            vec![KeyRange {
                start: b("a"),
                end: None
            }]
        );
        let bounded = set(
            &[],
            vec![
                range(
                    Some(StartKey::StartKeyClosed(b("a"))),
                    Some(EndKey::EndKeyOpen(b("z"))),
                ),
                range(
                    Some(StartKey::StartKeyClosed(b("b"))),
                    Some(EndKey::EndKeyOpen(b("c"))),
                ),
            ],
        );
        assert_eq!(normalize(Some(&bounded)).unwrap()[0].end, Some(b("z")));
    }

    #[test]
    fn empty_ranges_read_nothing_and_inverted_ones_are_refused() {
        let empty = set(
            &[""],
            vec![
                range(
                    Some(StartKey::StartKeyOpen(b("b"))),
                    Some(EndKey::EndKeyClosed(b("b"))),
                ),
                range(
                    Some(StartKey::StartKeyClosed(b("c"))),
                    Some(EndKey::EndKeyOpen(b("c"))),
                ),
            ],
        );
        assert_eq!(normalize(Some(&empty)).unwrap(), Vec::<KeyRange>::new());
        let inverted = set(
            &[],
            vec![
                range(None, None),
                range(
                    Some(StartKey::StartKeyClosed(b("z"))),
                    Some(EndKey::EndKeyOpen(b("a"))),
                ),
            ],
        );
        let err = normalize(Some(&inverted)).unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(err.message().starts_with("rows.row_ranges[1]:"));
    }

    #[test]
    fn open_and_closed_bounds_include_what_they_say() {
        let open = KeyRange::from_proto(&range(
            Some(StartKey::StartKeyOpen(b("b"))),
            Some(EndKey::EndKeyOpen(b("d"))),
        ));
        assert!(!open.contains(b"b") && open.contains(b"b\0") && open.contains(b"c"));
        assert!(!open.contains(b"d"));
        let closed = KeyRange::from_proto(&range(
            Some(StartKey::StartKeyClosed(b("b"))),
            Some(EndKey::EndKeyClosed(b("d"))),
        ));
        assert!(closed.contains(b"b") && closed.contains(b"d") && !closed.contains(b"d\0"));
    }

    #[test]
    fn reversed_scans_cover_the_range() {
        let r = KeyRange {
            start: b("b"),
            end: Some(b("d")),
        };
        let scan = r.scan(true);
        assert!(scan.reversed);
        assert_eq!(scan.max_versions, u32::MAX);
        assert_eq!(
            scan.start_row,
            b("d"),
            "inclusive high bound; d is dropped by contains"
        );
        assert_eq!(scan.stop_row, b("a"), "exclusive low bound below b");
        let exact = KeyRange::point(b"k\0").scan(true);
        assert_eq!(exact.stop_row, b("k"));
        assert_eq!(KeyRange::all().scan(true).stop_row, Bytes::new());
        let forward = r.scan(false);
        assert_eq!((forward.start_row, forward.stop_row), (b("b"), b("d")));
    }
}
