//! The oracle is pilota itself: its compact *writer* and its binary *reader* are correct, so a
//! value written compact, transcoded, and read binary must come back unchanged.
#![allow(clippy::unwrap_used)]

use bytes::{Bytes, BytesMut};
use pilota::thrift::binary::TBinaryProtocol;
use pilota::thrift::compact::TCompactOutputProtocol;
use pilota::thrift::{Message, TInputProtocol, TMessageIdentifier, TMessageType, TOutputProtocol};
use pilota::{AHashMap, FastStr};

use super::{compact_to_binary, TranscodeError};
use crate::gen::volo_gen::hbase::{
    ColumnDescriptor, HbaseMutateRowTsArgsRecv, Mutation, TScan, Text,
};

fn text(s: &str) -> Text {
    Text(Bytes::copy_from_slice(s.as_bytes()))
}

fn compact<M: Message>(name: &str, seq: i32, m: &M) -> BytesMut {
    let mut buf = BytesMut::new();
    let mut p = TCompactOutputProtocol::new(&mut buf, false);
    let ident = TMessageIdentifier::new(FastStr::new(name), TMessageType::Call, seq);
    p.write_message_begin(&ident).unwrap();
    m.encode(&mut p).unwrap();
    p.write_message_end().unwrap();
    buf
}

fn roundtrip<M: Message + PartialEq + std::fmt::Debug>(m: &M) {
    let input = compact("someCall", -7, m);
    let (out, used) = compact_to_binary(&input).unwrap();
    assert_eq!(used, input.len());
    let mut bytes = out.freeze();
    let mut p = TBinaryProtocol::new(&mut bytes, true);
    let ident = p.read_message_begin().unwrap();
    assert_eq!(&*ident.name, "someCall");
    assert_eq!(ident.sequence_number, -7);
    assert_eq!(ident.message_type, TMessageType::Call);
    assert_eq!(&M::decode(&mut p).unwrap(), m);
    p.read_message_end().unwrap();
    assert!(bytes.is_empty());
}

fn mutate_row_ts() -> HbaseMutateRowTsArgsRecv {
    let m = |delete, wal, col: &str| Mutation {
        is_delete: Some(delete),
        column: Some(text(col)),
        value: Some(text("v")),
        write_to_wal: Some(wal),
    };
    let mut attributes = AHashMap::default();
    attributes.insert(text("k"), text("v"));
    HbaseMutateRowTsArgsRecv {
        table_name: Some(text("t")),
        row: Some(text("r1")),
        mutations: Some(vec![m(false, true, "cf:a"), m(true, false, "cf:b")]),
        timestamp: Some(42),
        attributes: Some(attributes),
    }
}

/// The field after a list of structs (`timestamp` after `mutations`) keeps its id.
#[test]
fn field_after_nested_structs() {
    roundtrip(&mutate_row_ts());
}

#[test]
fn bool_fields_and_extreme_ints() {
    roundtrip(&ColumnDescriptor {
        name: Some(text("cf:")),
        max_versions: Some(i32::MIN),
        in_memory: Some(true),
        block_cache_enabled: Some(false),
        time_to_live: Some(i32::MAX),
        ..Default::default()
    });
    roundtrip(&TScan {
        start_row: Some(text("a")),
        timestamp: Some(i64::MIN),
        columns: Some(vec![text("cf:a"); 20]), // long list form (more than 14 elements)
        sort_columns: Some(true),
        reversed: Some(false),
        ..Default::default()
    });
}

/// Hand-written bytes for what HBase's IDL never sends: doubles, bools in a list, a long-form
/// (negative) field id, an empty map, a set, and i8/i16.
#[test]
fn other_types() {
    let input = [
        0x82, 0x21, 0x05, 0x01, b'f', // call, seq 5, name "f"
        0x17, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, // field 1: double 1.0 (little-endian)
        0x19, 0x31, 0x01, 0x02, 0x00, // field 2: list<bool> [true, false, false]
        0x03, 0x03, 0x7f, // field -2 (long form, zigzag 3): i8 127
        0x1b, 0x00, // field -1: empty map
        0x1a, 0x14, 0x03, // field 0: set<i16> [-2]
        0x00, // stop
    ];
    let expected: &[u8] = &[
        0x80, 0x01, 0x00, 0x01, 0, 0, 0, 1, b'f', 0, 0, 0, 5, //
        4, 0, 1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, //
        15, 0, 2, 2, 0, 0, 0, 3, 1, 0, 0, //
        3, 0xff, 0xfe, 0x7f, //
        13, 0xff, 0xff, 0, 0, 0, 0, 0, 0, //
        14, 0, 0, 6, 0, 0, 0, 1, 0xff, 0xfe, //
        0,
    ];
    let (out, used) = compact_to_binary(&input).unwrap();
    assert_eq!(used, input.len());
    assert_eq!(&out[..], expected);
}

#[test]
fn prefixes_are_incomplete_and_trailing_bytes_are_left() {
    let mut input = compact("mutateRowTs", 1, &mutate_row_ts());
    let len = input.len();
    for cut in 0..len {
        match compact_to_binary(&input[..cut]) {
            Err(TranscodeError::Incomplete { need }) => assert!(need > cut && need <= len),
            other => panic!("prefix {cut}: {other:?}"),
        }
    }
    input.extend_from_slice(&[0x82, 0x21]);
    assert_eq!(compact_to_binary(&input).unwrap().1, len);
}

#[test]
fn rejects_garbage() {
    let bad_type = [0x82, 0x21, 0x00, 0x00, 0x1e, 0x00];
    assert!(matches!(
        compact_to_binary(&bad_type),
        Err(TranscodeError::Invalid(_))
    ));
    let bad_version = [0x82, 0x22, 0x00, 0x00, 0x00];
    assert!(matches!(
        compact_to_binary(&bad_version),
        Err(TranscodeError::Invalid(_))
    ));
    // 100 nested structs, each field 1 of the one outside it.
    let mut deep = vec![0x82, 0x21, 0x00, 0x00];
    deep.extend(std::iter::repeat_n(0x1c, 100));
    deep.extend(std::iter::repeat_n(0x00, 101));
    assert!(matches!(
        compact_to_binary(&deep),
        Err(TranscodeError::Invalid(_))
    ));
    // A length beyond the limit is refused, not waited for.
    let huge = [0x82, 0x21, 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f];
    assert!(matches!(
        compact_to_binary(&huge),
        Err(TranscodeError::Invalid(_))
    ));
}
