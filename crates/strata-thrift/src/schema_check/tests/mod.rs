//! Requests are encoded by pilota from the generated structs, then checked and decoded the way
//! the server does (`CompatCodec`), or altered first to declare the wrong types and counts.
#![allow(clippy::unwrap_used)]

use bytes::{Bytes, BytesMut};
use pilota::thrift::binary::TBinaryProtocol;
use pilota::thrift::compact::TCompactOutputProtocol;
use pilota::thrift::{Message, TMessageIdentifier, TMessageType, TOutputProtocol};
use pilota::{AHashMap, FastStr};
use volo_thrift::codec::default::{MakeZeroCopyCodec, ZeroCopyDecoder};
use volo_thrift::context::ServerContext;
use volo_thrift::{Protocol, ThriftException, ThriftMessage};

use crate::binary_check::{check_binary_message, CheckError, MAX_REQUEST_ELEMENTS};
use crate::codec::MakeCompatCodec;
use crate::gen::volo_gen::hbase::*;

mod lies;
use lies::headers;

fn text(s: &str) -> Text {
    Text(Bytes::copy_from_slice(s.as_bytes()))
}

fn attributes() -> AHashMap<Text, Text> {
    let mut map = AHashMap::default();
    map.insert(text("k"), text("v"));
    map
}

/// `m` as a call of `name`, binary or compact (shared with `request_reader/tests.rs`).
pub(crate) fn encode<M: Message>(name: &str, m: &M, compact: bool) -> Vec<u8> {
    let mut buf = BytesMut::new();
    let ident = TMessageIdentifier::new(FastStr::new(name), TMessageType::Call, 1);
    if compact {
        let mut p = TCompactOutputProtocol::new(&mut buf, false);
        p.write_message_begin(&ident).unwrap();
        m.encode(&mut p).unwrap();
    } else {
        let mut p = TBinaryProtocol::new(&mut buf, true);
        p.write_message_begin(&ident).unwrap();
        m.encode(&mut p).unwrap();
    }
    buf.to_vec()
}

fn mutation(column: &str) -> Mutation {
    Mutation {
        is_delete: Some(false),
        column: Some(text(column)),
        value: Some(text("v")),
        write_to_wal: Some(true),
    }
}

/// One request of every container shape the IDL has, as (method, binary, compact).
fn requests() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    fn both<M: Message>(name: &'static str, m: M) -> (&'static str, Vec<u8>, Vec<u8>) {
        (name, encode(name, &m, false), encode(name, &m, true))
    }
    let batch = |row: &str| BatchMutation {
        row: Some(text(row)),
        mutations: Some(vec![mutation("cf:a"), mutation("cf:b")]),
    };
    vec![
        both(
            "mutateRows",
            HbaseMutateRowsArgsRecv {
                table_name: Some(text("t")),
                row_batches: Some(vec![batch("r1"), batch("r2")]),
                attributes: Some(attributes()),
            },
        ),
        both(
            "getRowWithColumns",
            HbaseGetRowWithColumnsArgsRecv {
                table_name: Some(text("t")),
                row: Some(text("r")),
                columns: Some(vec![text("cf:a"), text("cf:b")]),
                attributes: Some(attributes()),
            },
        ),
        both(
            "scannerOpenWithScan",
            HbaseScannerOpenWithScanArgsRecv {
                table_name: Some(text("t")),
                scan: Some(TScan {
                    start_row: Some(text("a")),
                    columns: Some(vec![text("cf")]),
                    ..Default::default()
                }),
                attributes: Some(attributes()),
            },
        ),
        both(
            "createTable",
            HbaseCreateTableArgsRecv {
                table_name: Some(text("t")),
                column_families: Some(vec![ColumnDescriptor {
                    name: Some(text("cf:")),
                    ..Default::default()
                }]),
            },
        ),
        both(
            "append",
            HbaseAppendArgsRecv {
                append: Some(TAppend {
                    table: Some(text("t")),
                    row: Some(text("r")),
                    columns: Some(vec![text("cf:a")]),
                    values: Some(vec![text("x")]),
                }),
            },
        ),
        both(
            "strataCreateTable",
            HbaseStrataCreateTableArgsRecv {
                table_name: Some(text("t")),
                families: Some(vec![TStrataFamily {
                    name: Some(text("cf")),
                    ..Default::default()
                }]),
                split_keys: Some(vec![text("m")]),
                durability: Some("ASYNC_WAL".into()),
            },
        ),
    ]
}

type Decoded = Result<Option<ThriftMessage<HbaseRequestRecv>>, ThriftException>;

/// The server's decode of one framed payload (binary or compact).
fn decode_framed(payload: &[u8]) -> Decoded {
    let (_, mut decoder) = MakeCompatCodec::new(Protocol::Binary).make_codec();
    let mut bytes = Bytes::copy_from_slice(payload);
    decoder.decode(&mut ServerContext::default(), &mut bytes)
}

/// The server's decode of one unframed message.
fn decode_buffered(stream: &[u8]) -> Decoded {
    let mut decoder = crate::fuzz_support::stream_decoder(stream);
    crate::fuzz_support::decode_next(&mut decoder).expect("a read from memory waited")
}

fn decode_error(decoded: Decoded) -> String {
    match decoded {
        Ok(_) => panic!("decoded"),
        Err(e) => e.to_string(),
    }
}

fn assert_decodes(decoded: Decoded, method: &str) {
    let msg = decoded.unwrap().unwrap();
    assert!(msg.data.is_ok(), "{method}");
}

#[test]
fn well_formed_requests_of_every_container_shape_pass() {
    for (method, binary, compact) in requests() {
        assert_eq!(check_binary_message(&binary), Ok(()), "{method}");
        assert_decodes(decode_framed(&binary), method);
        assert_decodes(decode_buffered(&binary), method);
        assert_decodes(decode_framed(&compact), method);
        assert_decodes(decode_buffered(&compact), method);
    }
}

/// Nothing is read from an empty container, so its declared types are not checked: a compact
/// empty map does not even have any (happybase sends `attributes={}` with every call).
#[test]
fn empty_containers_pass_whatever_types_they_declare() {
    let args = HbaseGetRowWithColumnsArgsRecv {
        table_name: Some(text("t")),
        row: Some(text("r")),
        columns: Some(Vec::new()),
        attributes: Some(AHashMap::default()),
    };
    let compact = encode("getRowWithColumns", &args, true);
    assert_decodes(decode_framed(&compact), "getRowWithColumns");
    assert_decodes(decode_buffered(&compact), "getRowWithColumns");
    let mut binary = encode("getRowWithColumns", &args, false);
    for header in headers(&binary) {
        binary[header.types_at] = 10;
    }
    assert_eq!(check_binary_message(&binary), Ok(()));
    assert_decodes(decode_framed(&binary), "getRowWithColumns");
}

/// Requests as happybase's Thrift library (thriftpy2 0.7.1, happybase 1.3.0's Hbase.thrift)
/// encodes them, binary and compact, one `method protocol hex` per line: another client's
/// encoder must pass the check too (its empty maps, its optional fields).
#[test]
fn requests_encoded_by_thriftpy2_pass() {
    let lines = include_str!("schema_check_happybase.txt").lines();
    let mut seen = 0;
    for line in lines {
        let [method, protocol, hex] = line.split(' ').collect::<Vec<_>>()[..] else {
            panic!("bad line {line}");
        };
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        assert_decodes(decode_framed(&bytes), &format!("{method} {protocol}"));
        assert_decodes(decode_buffered(&bytes), &format!("{method} {protocol}"));
        seen += 1;
    }
    assert_eq!(seen, 20);
}

/// Finding 7's shape, by hand: get's attributes declare (string, i64) values.
#[test]
fn a_map_declaring_other_value_types_is_rejected_on_every_path() {
    let mut body = vec![13, 0, 4, 11, 10, 0, 0, 0, 1, 0, 0, 0, 1, b'k'];
    body.extend_from_slice(&[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0]);
    let mut binary = vec![
        0x80, 0x01, 0x00, 0x01, 0, 0, 0, 3, b'g', b'e', b't', 0, 0, 0, 1,
    ];
    binary.extend_from_slice(&body);
    let expected = "get: field 4 declares map<string, i64>, the schema says map<binary, binary>";
    assert_eq!(
        check_binary_message(&binary),
        Err(CheckError::Invalid(expected.into()))
    );
    assert!(decode_error(decode_framed(&binary)).contains(expected));
    assert!(decode_error(decode_buffered(&binary)).contains(expected));
    // Compact: field 4 (delta 4) map, one entry, key binary (8) value i64 (6), "k" -> 1.
    let compact = [
        0x82, 0x21, 1, 3, b'g', b'e', b't', 0x4b, 1, 0x86, 1, b'k', 2, 0,
    ];
    assert!(decode_error(decode_framed(&compact)).contains(expected));
    assert!(decode_error(decode_buffered(&compact)).contains(expected));
}

/// pilota skips a field whose declared type is not the IDL's, and so does the check.
#[test]
fn fields_of_another_type_or_unknown_id_are_skipped_by_their_declared_types() {
    let get_row = HbaseGetRowArgsRecv {
        table_name: Some(text("t")),
        row: Some(text("r")),
        attributes: Some(attributes()),
    };
    // getRowWithColumns' field 3 is list<Text>; getRow sends its map there.
    let binary = encode("getRowWithColumns", &get_row, false);
    assert_eq!(check_binary_message(&binary), Ok(()));
    let msg = decode_framed(&binary).unwrap().unwrap();
    let Ok(HbaseRequestRecv::GetRowWithColumns(args)) = msg.data else {
        panic!("not getRowWithColumns");
    };
    assert_eq!(args.columns, None);
    // deleteTable has only field 1; a map (of any declared types) in field 3 is skipped.
    let mut binary = encode("deleteTable", &get_row, false);
    let map = headers(&binary)[0];
    binary[map.types_at + 1] = 10;
    // The map is the last field: replace its value ("v") and the stop with an i64 and a stop.
    binary.truncate(binary.len() - 6);
    binary.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9, 0]);
    assert_eq!(check_binary_message(&binary), Ok(()));
    assert_decodes(decode_framed(&binary), "deleteTable");
}

/// A call of `name` whose field 4 is a map<string, i64> holding "" -> 0.
fn call_with_i64_map(name: &str) -> Vec<u8> {
    let mut m = vec![0x80, 0x01, 0x00, 0x01];
    m.extend_from_slice(&(name.len() as i32).to_be_bytes());
    m.extend_from_slice(name.as_bytes());
    m.extend_from_slice(&[0, 0, 0, 1, 13, 0, 4, 11, 10, 0, 0, 0, 1, 0, 0, 0, 0]);
    m.extend_from_slice(&[0; 8]);
    m.push(0);
    m
}

#[test]
fn unknown_methods_are_walked_without_the_schema() {
    assert_eq!(
        check_binary_message(&call_with_i64_map("noSuchMethod")),
        Ok(())
    );
    assert!(check_binary_message(&call_with_i64_map("get")).is_err());
    // An exception message's body is read as an ApplicationException, not as arguments.
    let mut exception = call_with_i64_map("get");
    exception[3] = 3;
    assert_eq!(check_binary_message(&exception), Ok(()));
}

/// pilota's reader makes a `str` of a string value without checking it (found by the
/// randomized compact test in `lies`: formatting "unknown method <name>" then panicked).
#[test]
fn strings_that_are_not_utf8_are_rejected() {
    let mut name = call_with_i64_map("noSuchMethod");
    name[10] = 0xff;
    let err = check_binary_message(&name).unwrap_err();
    assert_eq!(
        err,
        CheckError::Invalid("the method name is not UTF-8".into())
    );
    assert!(decode_error(decode_framed(&name)).contains("not UTF-8"));

    let create = HbaseStrataCreateNamespaceArgsRecv {
        name: Some(FastStr::new("ns1")),
    };
    let mut binary = encode("strataCreateNamespace", &create, false);
    assert_eq!(check_binary_message(&binary), Ok(()));
    let at = binary.len() - 2; // the last byte of "ns1"
    binary[at] = 0xc3;
    let expected = "strataCreateNamespace: field 1 is not UTF-8";
    assert_eq!(
        check_binary_message(&binary),
        Err(CheckError::Invalid(expected.into()))
    );
    // Binary (`Text`) values may hold any bytes.
    let get = HbaseGetArgsRecv {
        row: Some(Text(Bytes::from_static(&[0xff, 0xc3]))),
        ..Default::default()
    };
    assert_eq!(check_binary_message(&encode("get", &get, false)), Ok(()));

    let mut exception = vec![0x80, 0x01, 0x00, 0x03, 0, 0, 0, 1, b'x', 0, 0, 0, 1];
    exception.extend_from_slice(&[11, 0, 1, 0, 0, 0, 1, 0xff, 0]);
    let expected = "exception: field 1 is not UTF-8";
    assert_eq!(
        check_binary_message(&exception),
        Err(CheckError::Invalid(expected.into()))
    );
    // pilota reads field 1 as a string whatever it declares (here i64), so the check does too;
    // and only the low four bits of the header are the message type.
    exception[13] = 10;
    exception[3] = 0x13;
    assert_eq!(
        check_binary_message(&exception),
        Err(CheckError::Invalid(expected.into()))
    );
}

/// mutateRow(field 3: list<Mutation>) with `lists` lists of `each` empty Mutations (all in
/// field 3: pilota decodes every copy of a repeated field).
fn empty_mutations(lists: usize, each: usize) -> Vec<u8> {
    let mut m = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 9];
    m.extend_from_slice(b"mutateRow");
    m.extend_from_slice(&1i32.to_be_bytes());
    for _ in 0..lists {
        m.extend_from_slice(&[15, 0, 3, 12]);
        m.extend_from_slice(&(each as i32).to_be_bytes());
        m.resize(m.len() + each, 0);
    }
    m.push(0);
    m
}

#[test]
fn container_elements_are_capped_across_the_message() {
    assert_eq!(check_binary_message(&empty_mutations(1, 1000)), Ok(()));
    assert_eq!(
        check_binary_message(&empty_mutations(1, MAX_REQUEST_ELEMENTS)),
        Ok(())
    );
    let expected = CheckError::Invalid(format!(
        "more than {MAX_REQUEST_ELEMENTS} container elements in one message"
    ));
    let over = empty_mutations(1, MAX_REQUEST_ELEMENTS + 1);
    assert_eq!(check_binary_message(&over), Err(expected));
    assert!(decode_error(decode_framed(&over)).contains("1000000 container elements"));
    let split = empty_mutations(2, MAX_REQUEST_ELEMENTS / 2 + 1);
    assert!(check_binary_message(&split).is_err());
    // Unknown methods are capped too.
    let mut unknown = empty_mutations(1, MAX_REQUEST_ELEMENTS + 1);
    unknown[8..17].copy_from_slice(b"mutateXyz");
    assert!(check_binary_message(&unknown).is_err());
}
