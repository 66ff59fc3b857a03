//! Every conversion round-trips through encoded bytes, and malformed messages are refused.

use bytes::Bytes;
use prost::Message;
use strata_engine::{Cell, CellType, Get, RowResult, Scan, TimeRange};
use strata_server::{Dialect, ErrorKind, WriteDurability};

use super::*;

const TYPES: [CellType; 5] = [
    CellType::Put,
    CellType::Delete,
    CellType::DeleteFamilyVersion,
    CellType::DeleteColumn,
    CellType::DeleteFamily,
];

/// Encodes and decodes `msg`, as the wire does.
fn wire<T: Message + Default>(msg: &T) -> T {
    T::decode(msg.encode_to_vec().as_slice()).unwrap()
}

fn row_of(cells: Vec<Cell>) -> RowResult {
    RowResult {
        row: cells[0].row.clone(),
        cells,
    }
}

#[test]
fn every_cell_type_round_trips() {
    for (i, t) in TYPES.into_iter().enumerate() {
        let mut cell = Cell::put("r", "cf", "q", -5 + i as i64, vec![0u8, 1, 255]);
        cell.cell_type = t;
        cell.seq = 40 + i as u64;
        assert_eq!(cell_from_msg(wire(&cell_to_msg(&cell))).unwrap(), cell);
    }
}

#[test]
fn an_unknown_cell_type_is_refused() {
    for code in [0, 5, 13, 256 + 4, u32::MAX] {
        let mut msg = cell_to_msg(&Cell::put("r", "cf", "q", 1, "v"));
        msg.cell_type = code;
        let err = cell_from_msg(msg).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument, "code {code}");
    }
}

#[test]
fn column_selections_round_trip() {
    let empty = Get::new("r");
    let mixed = Get::new("r")
        .family("a")
        .column("b", "q1")
        .column("b", "q2")
        .column("c", "");
    let mut only_empty_set = Get::new("r");
    only_empty_set
        .columns
        .insert(Bytes::from("d"), Some(Default::default()));
    for get in [empty, mixed, only_empty_set] {
        let back = get_from_msg(Some(wire(&get_to_msg(&get)))).unwrap();
        assert_eq!(back.columns, get.columns);
    }
}

#[test]
fn a_contradictory_selection_is_refused() {
    let whole_with_qualifiers = vec![m::FamilyColumns {
        family: Bytes::from("a"),
        all: true,
        qualifiers: vec![Bytes::from("q")],
    }];
    assert!(columns_from_msg(whole_with_qualifiers).is_err());
    let twice = columns_to_msg(&Get::new("r").family("a").columns);
    let twice = [twice.clone(), twice].concat();
    assert!(columns_from_msg(twice).is_err());
}

#[test]
fn gets_keep_versions_and_time_ranges() {
    for range in [TimeRange::ALL, TimeRange::at(7), TimeRange::new(-3, 9)] {
        let get = Get::new("row").versions(3).time_range(range);
        let back = get_from_msg(Some(wire(&get_to_msg(&get)))).unwrap();
        assert_eq!(
            (back.row, back.max_versions, back.time_range),
            (get.row, 3, range)
        );
    }
    assert!(get_from_msg(None).is_err());
}

#[test]
fn scans_round_trip_without_their_limit() {
    let forward = Scan::new().range("a", "m").column("cf", "q").limit(3);
    let reversed = Scan::new()
        .range("z", "b")
        .reversed(true)
        .versions(2)
        .time_range(TimeRange::new(5, 50))
        .cache_blocks(false);
    for scan in [forward, reversed, Scan::default()] {
        let back = scan_from_msg(Some(wire(&scan_to_msg(&scan)))).unwrap();
        assert_eq!(
            (&back.start_row, &back.stop_row, back.reversed),
            (&scan.start_row, &scan.stop_row, scan.reversed)
        );
        assert_eq!(
            (&back.columns, back.max_versions, back.time_range),
            (&scan.columns, scan.max_versions, scan.time_range)
        );
        assert_eq!(back.cache_blocks, scan.cache_blocks);
        assert_eq!(back.limit, None);
    }
}

#[test]
fn expected_reads_tell_no_row_from_an_empty_row() {
    let present = row_of(vec![Cell::put("r", "cf", "q", 1, "v")]);
    let empty = RowResult {
        row: Bytes::from("r"),
        cells: Vec::new(),
    };
    let expected = vec![
        (Get::new("r"), None),
        (Get::new("r").family("cf"), Some(present)),
        (Get::new("r").column("cf", "x"), Some(empty)),
    ];
    let msg = m::MutateIfRequest {
        expected: expected_to_msg(&expected),
        ..Default::default()
    };
    let back = expected_from_msg(wire(&msg).expected).unwrap();
    assert_eq!(back.len(), 3);
    for ((get, answer), (sent_get, sent_answer)) in back.iter().zip(&expected) {
        assert_eq!(answer, sent_answer);
        assert_eq!(get.columns, sent_get.columns);
    }
    let missing_get = vec![m::ExpectedRead::default()];
    assert!(expected_from_msg(missing_get).is_err());
}

#[test]
fn scan_chunks_round_trip() {
    let table = strata_server::remote::PeerTable {
        name: strata_server::TableName::parse("ns:t").unwrap(),
        schema: 0x1234_5678_9abc_def0,
    };
    for after in [None, Some(Bytes::new()), Some(Bytes::from("r9"))] {
        let chunk = ScanChunk {
            scan: Scan::new().reversed(true),
            region_start: Bytes::from("a"),
            region_end: Bytes::new(),
            after: after.clone(),
            max_rows: 256,
        };
        let (t, back) = chunk_from_msg(wire(&chunk_to_msg(&table, &chunk))).unwrap();
        assert_eq!(t, table);
        assert_eq!((back.after, back.max_rows), (after, 256));
        assert_eq!(
            (back.region_start, back.region_end),
            (chunk.region_start, chunk.region_end)
        );
        assert!(back.scan.reversed);
    }
    let mut bad_table = chunk_to_msg(
        &table,
        &ScanChunk {
            scan: Scan::new(),
            region_start: Bytes::new(),
            region_end: Bytes::new(),
            after: None,
            max_rows: 1,
        },
    );
    bad_table.table = "no such:name:at all".into();
    assert!(chunk_from_msg(bad_table).is_err());
}

#[test]
fn writes_keep_dialect_and_durability() {
    for dialect in [Dialect::Hbase, Dialect::Bigtable] {
        for durability in [
            WriteDurability::UseDefault,
            WriteDurability::SkipWal,
            WriteDurability::AsyncWal,
            WriteDurability::SyncWal,
            WriteDurability::FsyncWal,
        ] {
            let back = write_from_msg(dialect_to_msg(dialect), durability.name()).unwrap();
            assert_eq!((back.dialect, back.durability), (dialect, durability));
        }
    }
    assert!(write_from_msg(7, "SYNC_WAL").is_err());
    assert!(write_from_msg(0, "SOMETIMES").is_err());
}

#[test]
fn garbage_bytes_do_not_decode_into_a_request() {
    let garbage = [0xffu8, 0xff, 0xff, 0xff, 0x0f, 0x12];
    assert!(m::MutateRequest::decode(&garbage[..]).is_err());
}

#[test]
fn every_region_work_round_trips_and_an_unknown_one_is_refused() {
    use strata_server::remote::RegionWork;
    for work in [
        RegionWork::Flush,
        RegionWork::Compact,
        RegionWork::MajorCompact,
        RegionWork::Measure,
        RegionWork::Release,
    ] {
        assert_eq!(work_from_msg(work_to_msg(work)).unwrap(), work);
    }
    assert!(work_from_msg(9).is_err());
}
