use super::*;
use pb::mutation::{DeleteFromColumn, DeleteFromFamily, DeleteFromRow, Mutation as M, SetCell};

fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

fn set(family: &str, q: &str, ts: i64, v: &str) -> pb::Mutation {
    pb::Mutation {
        mutation: Some(M::SetCell(SetCell {
            family_name: family.into(),
            column_qualifier: b(q),
            timestamp_micros: ts,
            value: b(v),
        })),
    }
}

fn delete_column(q: &str, start: i64, end: i64) -> pb::Mutation {
    pb::Mutation {
        mutation: Some(M::DeleteFromColumn(DeleteFromColumn {
            family_name: "cf".into(),
            column_qualifier: b(q),
            time_range: Some(pb::TimestampRange {
                start_timestamp_micros: start,
                end_timestamp_micros: end,
            }),
        })),
    }
}

fn families() -> Vec<Bytes> {
    vec![b("cf"), b("other")]
}

fn ops(mutations: &[pb::Mutation]) -> Vec<Op> {
    parse("mutations", mutations, &families(), "default:t").unwrap()
}

fn stored(q: &str, ts: i64) -> Cell {
    Cell::put(b("r"), b("cf"), b(q), ts, b("old"))
}

fn row(cells: Vec<Cell>) -> Option<RowResult> {
    Some(RowResult { row: b("r"), cells })
}

#[test]
fn errors_name_the_bad_field() {
    let bad_ts = parse(
        "mutations",
        &[set("cf", "q", 1000, "v"), set("cf", "q", 1, "v")],
        &families(),
        "t",
    )
    .unwrap_err();
    assert_eq!(bad_ts.code(), tonic::Code::InvalidArgument);
    assert!(bad_ts
        .message()
        .starts_with("mutations[1].set_cell.timestamp_micros:"));
    let unknown = parse(
        "true_mutations",
        &[set("nope", "q", 0, "v")],
        &families(),
        "t",
    )
    .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    assert!(unknown.message().starts_with("true_mutations[0]:"));
    assert!(unknown.message().contains("nope"));
    let empty = parse("m", &[pb::Mutation { mutation: None }], &families(), "t").unwrap_err();
    assert_eq!(empty.code(), tonic::Code::InvalidArgument);
    let inverted = parse("m", &[delete_column("q", 5000, 1000)], &families(), "t").unwrap_err();
    assert!(inverted
        .message()
        .starts_with("m[0].delete_from_column.time_range:"));
}

#[test]
fn puts_alone_need_no_read() {
    let o = ops(&[set("cf", "q", -1, "v"), set("cf", "q", 3000, "w")]);
    assert!(only_puts(&o));
    let cells = put_cells(&b("r"), &o);
    assert_eq!(cells[0].timestamp, LATEST_TIMESTAMP);
    assert_eq!(cells[1].timestamp, 3);
}

#[test]
fn a_column_delete_marks_exactly_the_versions_in_its_range() {
    let o = ops(&[delete_column("q", 2000, 4000)]);
    assert!(!only_puts(&o));
    let current = row(vec![
        stored("q", 5),
        stored("q", 3),
        stored("q", 2),
        stored("q", 1),
    ]);
    let cells = apply(&b("r"), &o, current, 100);
    let marked: Vec<(CellType, i64)> = cells.iter().map(|c| (c.cell_type, c.timestamp)).collect();
    assert_eq!(marked, vec![(CellType::Delete, 3), (CellType::Delete, 2)]);
}

#[test]
fn sub_millisecond_range_bounds_round_up() {
    // [1500 µs, 3000 µs) holds the 2 ms version only.
    let o = ops(&[delete_column("q", 1500, 3000)]);
    let current = row(vec![stored("q", 3), stored("q", 2), stored("q", 1)]);
    let ts: Vec<i64> = apply(&b("r"), &o, current, 100)
        .iter()
        .map(|c| c.timestamp)
        .collect();
    assert_eq!(ts, vec![2]);
}

#[test]
fn mutations_apply_in_request_order() {
    let delete_row = pb::Mutation {
        mutation: Some(M::DeleteFromRow(DeleteFromRow {})),
    };
    // A put before the delete dies with the row; one after it survives, even at the
    // timestamp of a deleted version (which it simply replaces).
    let o = ops(&[
        set("cf", "early", 7000, "x"),
        delete_row,
        set("cf", "q", 1000, "new"),
        set("cf", "later", -1, "y"),
    ]);
    let current = row(vec![stored("q", 1), stored("z", 4)]);
    let cells = apply(&b("r"), &o, current, 42);
    let got: Vec<(CellType, &[u8], i64)> = cells
        .iter()
        .map(|c| (c.cell_type, c.qualifier.as_ref(), c.timestamp))
        .collect();
    assert_eq!(
        got,
        vec![
            (CellType::Delete, &b"z"[..], 4),
            (CellType::Put, &b"q"[..], 1),
            (CellType::Put, &b"later"[..], 42),
        ]
    );
}

#[test]
fn family_deletes_touch_only_their_family() {
    let o = ops(&[pb::Mutation {
        mutation: Some(M::DeleteFromFamily(DeleteFromFamily {
            family_name: "other".into(),
        })),
    }]);
    let mut other = stored("q", 2);
    other.family = b("other");
    let cells = apply(&b("r"), &o, row(vec![stored("q", 1), other]), 9);
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].family, b("other"));
    let read = read_for(&b("r"), &o);
    assert_eq!(read.columns.len(), 1);
    assert_eq!(read.max_versions, u32::MAX);
}

#[test]
fn deleting_nothing_writes_nothing() {
    let o = ops(&[delete_column("q", 0, 0)]);
    assert!(apply(&b("r"), &o, None, 1).is_empty());
}
