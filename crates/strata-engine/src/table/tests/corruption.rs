//! Damaged files must produce `Error::Corruption` naming the file, never garbage or a panic.

use std::path::Path;

use super::*;
use crate::error::Error;
use crate::options::{BloomType, Compression};
use crate::table::block::BlockBuilder;
use crate::table::format::{BlockHandle, Trailer, TRAILER_LEN};
use crate::table::frame::encode_frame;

/// Opens, scans, seeks and probes the bloom filter; returns the first error.
fn read_everything(bytes: Vec<u8>, cached: bool) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let cache = cached.then(|| BlockCache::new(1 << 20));
    let table = open(bytes, cache)?;
    let mut it = table.iter();
    let all = scan(&mut it)?;
    it.seek(b"row-00010")?;
    it.last_key_before(b"row-00020")?;
    table.may_contain_row(b"row-00001")?;
    Ok(all)
}

fn assert_corruption(result: Result<impl std::fmt::Debug>, what: &str) -> u64 {
    match result {
        Err(Error::Corruption {
            path: p, offset, ..
        }) => {
            assert_eq!(p, path(), "{what}");
            offset
        }
        other => panic!("{what}: expected corruption, got {other:?}"),
    }
}

fn small_table(codec: Compression) -> (Vec<u8>, Model) {
    let model = random_model(&mut rng(21), 60);
    let opts = TableOptions {
        block_size: 256,
        compression: codec,
        ..Default::default()
    };
    (build(&model, opts).0, model)
}

fn trailer_of(bytes: &[u8]) -> Trailer {
    let at = bytes.len() - TRAILER_LEN;
    Trailer::decode(&bytes[at..], Path::new("x"), 0).unwrap()
}

#[test]
fn every_single_byte_flip_is_detected() {
    for codec in [Compression::None, Compression::Lz4] {
        let (good, model) = small_table(codec);
        let expected: Vec<_> = model.into_iter().collect();
        assert_eq!(read_everything(good.clone(), true).unwrap(), expected);
        for i in 0..good.len() {
            for cached in [false, true] {
                let mut bad = good.clone();
                bad[i] ^= 0x04;
                assert_corruption(read_everything(bad, cached), &format!("byte {i}"));
            }
        }
    }
}

#[test]
fn corruption_names_the_damaged_block() {
    let (good, _) = small_table(Compression::None);
    let t = trailer_of(&good);
    let bloom = t.bloom.unwrap();
    let regions = [
        ("data block", BlockHandle { offset: 0, size: 1 }),
        ("index", t.index),
        ("bloom", bloom),
        ("meta", t.meta),
    ];
    for (name, handle) in regions {
        let mut bad = good.clone();
        bad[(handle.offset + handle.size / 2) as usize] ^= 0xFF;
        let offset = assert_corruption(read_everything(bad, false), name);
        assert_eq!(offset, handle.offset, "{name}");
    }
    let mut bad = good.clone();
    let trailer_at = good.len() - TRAILER_LEN;
    bad[trailer_at + 3] ^= 1;
    let offset = assert_corruption(read_everything(bad, false), "trailer");
    assert_eq!(offset, trailer_at as u64);
}

#[test]
fn truncated_files_are_corruption() {
    let (good, _) = small_table(Compression::Snappy);
    for len in 0..good.len() {
        let result = read_everything(good[..len].to_vec(), false);
        assert_corruption(result, &format!("truncated to {len}"));
    }
}

#[test]
fn garbage_files_are_corruption() {
    let mut rng = rng(22);
    for len in [0, 10, 63, 64, 65, 1000] {
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        assert_corruption(
            read_everything(bytes, false),
            &format!("{len} random bytes"),
        );
    }
}

/// Rebuilds `good` with a replacement index block (valid frame and CRC, bad contents).
fn with_index(good: &[u8], index_raw: &[u8]) -> Vec<u8> {
    let t = trailer_of(good);
    let meta = good[t.meta.offset as usize..(t.meta.offset + t.meta.size) as usize].to_vec();
    let bloom = t.bloom.unwrap();
    let bloom = good[bloom.offset as usize..(bloom.offset + bloom.size) as usize].to_vec();
    let mut out = good[..t.index.offset as usize].to_vec();
    let mut append = |block: Vec<u8>| {
        let handle = BlockHandle {
            offset: out.len() as u64,
            size: block.len() as u64,
        };
        out.extend_from_slice(&block);
        handle
    };
    let index = append(encode_frame(index_raw, Compression::None));
    let bloom = Some(append(bloom));
    let meta = append(meta);
    out.extend_from_slice(&Trailer { index, bloom, meta }.encode());
    out
}

#[test]
fn handles_outside_the_file_are_rejected_without_allocating() {
    let (good, model) = small_table(Compression::None);
    let last = model.keys().next_back().unwrap().clone();
    let bad_handles = [
        BlockHandle {
            offset: u64::MAX - 1,
            size: 100,
        },
        BlockHandle {
            offset: 0,
            size: 1 << 40,
        },
        BlockHandle { offset: 0, size: 2 },
    ];
    for handle in bad_handles {
        let mut value = Vec::new();
        handle.encode_varint(&mut value);
        let mut index = BlockBuilder::new(1);
        index.add(&last, &value);
        let bytes = with_index(&good, &index.finish());
        assert_corruption(read_everything(bytes, false), &format!("{handle:?}"));
    }
    let mut index = BlockBuilder::new(1);
    index.add(&last, b"\xff\xff");
    let bytes = with_index(&good, &index.finish());
    assert_corruption(read_everything(bytes, true), "unparseable handle");
    // Control: the same construction with the real index reads fine.
    let t = trailer_of(&good);
    let real = crate::table::frame::decode_frame(
        good[t.index.offset as usize..(t.index.offset + t.index.size) as usize].to_vec(),
        Path::new("x"),
        0,
    )
    .unwrap();
    assert!(read_everything(with_index(&good, &real), false).is_ok());
}

#[test]
fn trailer_handles_outside_the_file_are_rejected() {
    let (good, _) = small_table(Compression::None);
    let t = trailer_of(&good);
    let body = &good[..good.len() - TRAILER_LEN];
    let huge = BlockHandle {
        offset: 0,
        size: u64::MAX,
    };
    for trailer in [
        Trailer { meta: huge, ..t },
        Trailer { index: huge, ..t },
        Trailer {
            bloom: Some(huge),
            ..t
        },
        Trailer { bloom: None, ..t },
    ] {
        let mut bytes = body.to_vec();
        bytes.extend_from_slice(&trailer.encode());
        assert_corruption(read_everything(bytes, false), &format!("{trailer:?}"));
    }
}

#[test]
fn bloom_type_none_has_no_bloom_block() {
    let model = random_model(&mut rng(23), 10);
    let opts = TableOptions {
        bloom_type: BloomType::None,
        ..Default::default()
    };
    let (bytes, _) = build(&model, opts);
    assert_eq!(trailer_of(&bytes).bloom, None);
}
