//! Semantics tests of the matcher and row reader over hand-built cell sets.

use bytes::Bytes;

use super::matcher::{ReadParams, RowMatcher};
use super::merge::VecIter;
use super::row::read_row;
use crate::api::TimeRange;
use crate::cell::CellType;
use crate::iter::KvIter;
use crate::key;

fn params() -> ReadParams {
    ReadParams {
        read_point: u64::MAX,
        time_range: TimeRange::ALL,
        max_versions: 1,
        min_versions: 0,
        oldest_unexpired_ts: i64::MIN,
        keep_deleted_cells: false,
        columns: None,
    }
}

/// (qualifier, ts, type, seq, value)
type Spec<'a> = (&'a str, i64, CellType, u64, &'a str);

fn read(cells: &[Spec], p: ReadParams) -> Vec<(String, i64, String)> {
    let mut entries: Vec<(Vec<u8>, Vec<u8>)> = cells
        .iter()
        .map(|(q, ts, t, seq, v)| {
            (
                key::make_key(b"row", q.as_bytes(), *ts, *t, *seq),
                v.as_bytes().to_vec(),
            )
        })
        .collect();
    // another row on each side, which must never leak in
    entries.push((
        key::make_key(b"rov", b"x", 1, CellType::Put, 1),
        b"before".to_vec(),
    ));
    entries.push((
        key::make_key(b"rox", b"x", 1, CellType::Put, 1),
        b"after".to_vec(),
    ));
    entries.sort();
    let mut iter = VecIter::new(entries);
    let prefix = key::row_prefix(b"row");
    iter.seek(&prefix).unwrap();
    let mut out = Vec::new();
    let mut m = RowMatcher::new(p);
    read_row(
        &mut iter,
        &mut m,
        &Bytes::from_static(b"row"),
        &prefix,
        &Bytes::from_static(b"cf"),
        &mut out,
    )
    .unwrap();
    assert!(
        iter.valid() && iter.key().starts_with(&key::row_prefix(b"rox")),
        "reader must stop at the next row"
    );
    out.into_iter()
        .map(|c| {
            (
                String::from_utf8(c.qualifier.to_vec()).unwrap(),
                c.timestamp,
                String::from_utf8(c.value.to_vec()).unwrap(),
            )
        })
        .collect()
}

fn q(s: &str, ts: i64, v: &str) -> (String, i64, String) {
    (s.to_string(), ts, v.to_string())
}

use CellType::*;

#[test]
fn newest_version_per_column_by_default() {
    let cells = [
        ("a", 3, Put, 3, "a3"),
        ("a", 2, Put, 2, "a2"),
        ("b", 1, Put, 1, "b1"),
    ];
    assert_eq!(
        read(&cells, params()),
        vec![q("a", 3, "a3"), q("b", 1, "b1")]
    );
    let p = ReadParams {
        max_versions: 5,
        ..params()
    };
    assert_eq!(
        read(&cells, p),
        vec![q("a", 3, "a3"), q("a", 2, "a2"), q("b", 1, "b1")]
    );
}

#[test]
fn same_timestamp_later_write_wins() {
    let cells = [("a", 5, Put, 1, "old"), ("a", 5, Put, 2, "new")];
    assert_eq!(
        read(
            &cells,
            ReadParams {
                max_versions: 3,
                ..params()
            }
        ),
        vec![q("a", 5, "new")]
    );
}

#[test]
fn delete_version_masks_exactly_its_timestamp() {
    let cells = [
        ("a", 5, Put, 1, "a5"),
        ("a", 4, Put, 1, "a4"),
        ("a", 5, Delete, 2, ""),
    ];
    assert_eq!(
        read(
            &cells,
            ReadParams {
                max_versions: 3,
                ..params()
            }
        ),
        vec![q("a", 4, "a4")]
    );
}

#[test]
fn delete_column_masks_at_or_below_never_newer() {
    let cells = [
        ("a", 6, Put, 1, "a6"),
        ("a", 5, Put, 1, "a5"),
        ("a", 4, Put, 1, "a4"),
        ("a", 5, DeleteColumn, 2, ""),
        ("b", 1, Put, 1, "b1"),
    ];
    assert_eq!(
        read(
            &cells,
            ReadParams {
                max_versions: 3,
                ..params()
            }
        ),
        vec![q("a", 6, "a6"), q("b", 1, "b1")]
    );
}

#[test]
fn delete_family_masks_every_column_at_or_below() {
    let cells = [
        ("", 9, Put, 1, "e9"),
        ("", 5, DeleteFamily, 2, ""),
        ("", 3, Put, 1, "e3"),
        ("a", 6, Put, 1, "a6"),
        ("a", 5, Put, 1, "a5"),
        ("b", 2, Put, 1, "b2"),
    ];
    assert_eq!(
        read(
            &cells,
            ReadParams {
                max_versions: 3,
                ..params()
            }
        ),
        vec![q("", 9, "e9"), q("a", 6, "a6")]
    );
}

#[test]
fn delete_family_version_masks_one_timestamp_in_every_column() {
    let cells = [
        ("", 5, DeleteFamilyVersion, 2, ""),
        ("a", 5, Put, 1, "a5"),
        ("a", 4, Put, 1, "a4"),
        ("b", 5, Put, 1, "b5"),
        ("b", 6, Put, 1, "b6"),
    ];
    assert_eq!(
        read(
            &cells,
            ReadParams {
                max_versions: 3,
                ..params()
            }
        ),
        vec![q("a", 4, "a4"), q("b", 6, "b6")]
    );
}

#[test]
fn a_delete_masks_later_puts_with_older_timestamps() {
    // HBase: a marker masks by timestamp, whatever the order of the writes.
    let cells = [("a", 10, DeleteColumn, 1, ""), ("a", 5, Put, 2, "late")];
    assert!(read(&cells, params()).is_empty());
}

#[test]
fn read_point_hides_newer_writes_including_markers() {
    let cells = [
        ("a", 5, Put, 1, "a5"),
        ("a", 6, Put, 3, "a6"),
        ("a", 9, DeleteColumn, 4, ""),
    ];
    assert_eq!(
        read(
            &cells,
            ReadParams {
                read_point: 2,
                ..params()
            }
        ),
        vec![q("a", 5, "a5")]
    );
    assert_eq!(
        read(
            &cells,
            ReadParams {
                read_point: 3,
                ..params()
            }
        ),
        vec![q("a", 6, "a6")]
    );
    assert!(read(&cells, params()).is_empty());
}

#[test]
fn time_range_is_half_open_and_versions_count_inside_it() {
    let cells = [
        ("a", 7, Put, 1, "a7"),
        ("a", 6, Put, 1, "a6"),
        ("a", 5, Put, 1, "a5"),
        ("a", 4, Put, 1, "a4"),
    ];
    let p = ReadParams {
        time_range: TimeRange::new(5, 7),
        max_versions: 1,
        ..params()
    };
    assert_eq!(read(&cells, p), vec![q("a", 6, "a6")]);
    let p = ReadParams {
        time_range: TimeRange::new(5, 7),
        max_versions: 9,
        ..params()
    };
    assert_eq!(read(&cells, p), vec![q("a", 6, "a6"), q("a", 5, "a5")]);
}

#[test]
fn ttl_expires_old_versions_but_min_versions_keeps_the_newest() {
    let cells = [
        ("a", 100, Put, 1, "a100"),
        ("a", 50, Put, 1, "a50"),
        ("a", 10, Put, 1, "a10"),
    ];
    let p = ReadParams {
        oldest_unexpired_ts: 60,
        max_versions: 5,
        ..params()
    };
    assert_eq!(read(&cells, p), vec![q("a", 100, "a100")]);
    let p = ReadParams {
        oldest_unexpired_ts: 200,
        max_versions: 5,
        min_versions: 2,
        ..params()
    };
    assert_eq!(
        read(&cells, p),
        vec![q("a", 100, "a100"), q("a", 50, "a50")]
    );
}

#[test]
fn keep_deleted_cells_lets_time_range_reads_see_before_a_delete() {
    let cells = [("a", 10, DeleteColumn, 2, ""), ("a", 5, Put, 1, "a5")];
    let before = TimeRange::new(0, 10);
    let p = ReadParams {
        keep_deleted_cells: true,
        time_range: before,
        ..params()
    };
    assert_eq!(read(&cells, p), vec![q("a", 5, "a5")]);
    let p = ReadParams {
        keep_deleted_cells: false,
        time_range: before,
        ..params()
    };
    assert!(read(&cells, p).is_empty());
    let p = ReadParams {
        keep_deleted_cells: true,
        ..params()
    };
    assert!(
        read(&cells, p).is_empty(),
        "an unbounded read still honours the delete"
    );
}

#[test]
fn column_selection_still_sees_family_markers() {
    let cells = [
        ("", 5, DeleteFamily, 2, ""),
        ("a", 4, Put, 1, "a4"),
        ("b", 6, Put, 1, "b6"),
        ("b", 3, Put, 1, "b3"),
        ("c", 9, Put, 1, "c9"),
    ];
    let selected = [key::escape_component(b"b")].into_iter().collect();
    let p = ReadParams {
        columns: Some(selected),
        max_versions: 5,
        ..params()
    };
    assert_eq!(read(&cells, p), vec![q("b", 6, "b6")]);
}

#[test]
fn skipping_many_versions_uses_seek_and_stays_correct() {
    let mut cells: Vec<Spec> = (1..=40).map(|ts| ("a", ts, Put, ts as u64, "v")).collect();
    cells.push(("b", 1, Put, 1, "b1"));
    let got = read(&cells, params());
    assert_eq!(got, vec![q("a", 40, "v"), q("b", 1, "b1")]);
    let selected = [key::escape_component(b"b")].into_iter().collect();
    let got = read(
        &cells,
        ReadParams {
            columns: Some(selected),
            ..params()
        },
    );
    assert_eq!(got, vec![q("b", 1, "b1")]);
}

/// Like `read`, over several sources merged (a memstore and files, say).
fn read_merged(sources: &[&[Spec]], p: ReadParams) -> Vec<(String, i64, String)> {
    let iters: Vec<Box<dyn KvIter>> = sources
        .iter()
        .map(|cells| {
            let mut entries: Vec<(Vec<u8>, Vec<u8>)> = cells
                .iter()
                .map(|(q, ts, t, seq, v)| {
                    let k = key::make_key(b"row", q.as_bytes(), *ts, *t, *seq);
                    (k, v.as_bytes().to_vec())
                })
                .collect();
            entries.sort();
            Box::new(VecIter::new(entries)) as Box<dyn KvIter>
        })
        .collect();
    let mut iter = super::merge::MergingIter::new(iters);
    let prefix = key::row_prefix(b"row");
    iter.seek(&prefix).unwrap();
    let mut out = Vec::new();
    let row = Bytes::from_static(b"row");
    let family = Bytes::from_static(b"cf");
    read_row(
        &mut iter,
        &mut RowMatcher::new(p),
        &row,
        &prefix,
        &family,
        &mut out,
    )
    .unwrap();
    out.iter()
        .map(|c| {
            let v = String::from_utf8(c.value.to_vec()).unwrap();
            (
                String::from_utf8(c.qualifier.to_vec()).unwrap(),
                c.timestamp,
                v,
            )
        })
        .collect()
}

/// Skipping a column's old versions seeks forward only the sources behind the target; a
/// marker in another source must still mask, and later columns of every source still show.
#[test]
fn skipping_many_versions_across_merged_sources_stays_correct() {
    let mut memstore: Vec<Spec> = (21..=40)
        .map(|ts| ("a", ts, Put, ts as u64, "new"))
        .collect();
    memstore.push(("c", 1, Put, 200, "c1"));
    let mut file: Vec<Spec> = (1..=20)
        .map(|ts| ("a", ts, Put, ts as u64, "old"))
        .collect();
    file.push(("a", 40, Delete, 100, ""));
    file.push(("b", 7, Put, 50, "b7"));
    // Positioned past column `a` from the start: the skip leaves it where it is.
    let later: Vec<Spec> = vec![("d", 1, Put, 300, "d1")];
    let got = read_merged(&[&memstore, &file, &later], params());
    let want = vec![
        q("a", 39, "new"),
        q("b", 7, "b7"),
        q("c", 1, "c1"),
        q("d", 1, "d1"),
    ];
    assert_eq!(got, want);
    let three = ReadParams {
        max_versions: 3,
        ..params()
    };
    let got = read_merged(&[&later, &file, &memstore], three);
    let want = vec![
        q("a", 39, "new"),
        q("a", 38, "new"),
        q("a", 37, "new"),
        q("b", 7, "b7"),
        q("c", 1, "c1"),
        q("d", 1, "d1"),
    ];
    assert_eq!(got, want);
}
