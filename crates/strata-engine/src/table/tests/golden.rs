//! Pins the exact bytes of format v1. If this test fails, the on-disk format changed: that
//! needs a new format version, not an updated constant.

use super::*;
use crate::options::{BloomType, Compression, DataBlockEncoding};

/// The fixed inputs: two rows, a delete marker, and a block size that gives two data blocks.
fn golden_table() -> (Vec<u8>, Model) {
    let mut model = Model::new();
    model.insert(make_key(b"r1", b"a", 100, CellType::Put, 7), b"v1".to_vec());
    model.insert(make_key(b"r1", b"b", 90, CellType::Delete, 8), Vec::new());
    model.insert(make_key(b"r2", b"a", 80, CellType::Put, 9), b"v3".to_vec());
    let opts = TableOptions {
        block_size: 40,
        compression: Compression::None,
        encoding: DataBlockEncoding::Prefix,
        bloom_type: BloomType::Row,
        bloom_bits_per_key: 10,
    };
    (build(&model, opts).0, model)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex of the whole file: data block 1 (r1/a, r1/b) at 0, data block 2 (r2/a) at 65, index
/// at 107, bloom at 182, meta at 196, trailer in the last 64 bytes.
const GOLDEN: &str = concat!(
    "00180272310001610001ffffffffffffff9bfbfffffffffffffff87631041400",
    "620001ffffffffffffffa5f7fffffffffffffff70000000001000000008b20f3",
    "a700180272320001610001ffffffffffffffaffbfffffffffffffff676330000",
    "00000100000000e9bba94a00180272310001620001ffffffffffffffa5f7ffff",
    "fffffffffff7004100180272320001610001ffffffffffffffaffbffffffffff",
    "fffff6412a000000001d00000002000000007e950934220044558800102a0700",
    "eeb67507010101021872310001610001ffffffffffffff9bfbffffffffffffff",
    "f8031872320001610001ffffffffffffffaffbfffffffffffffff60408500000",
    "0000000000050864000000000000000601090701030801020901010a01000b01",
    "480c01040d01020e01010f010010010111012800358b2dac6b00000000000000",
    "4b00000000000000b6000000000000000e00000000000000c400000000000000",
    "7400000000000000010000005354524154535354beb23103",
);

#[test]
fn format_v1_bytes_are_pinned() {
    let (bytes, model) = golden_table();
    let actual = hex(&bytes);
    let pretty: Vec<_> = actual
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    assert_eq!(pretty.concat(), GOLDEN, "\n{}", pretty.join("\n"));
    let table = open(bytes, None).unwrap();
    let expected: Vec<_> = model.into_iter().collect();
    assert_eq!(scan(&mut table.iter()).unwrap(), expected);
}
