//! Round trips for every codec, encoding and bloom type, seeks and `last_key_before` against
//! the model, builder argument checks, cache interaction and the real filesystem.

use std::sync::Arc;

use rand::Rng;

use super::*;
use crate::cache::Priority;
use crate::error::Error;
use crate::fs::{FileSystem, LocalFs};
use crate::key::row_prefix_of;
use crate::options::{BloomType, Compression, DataBlockEncoding};
use crate::table::block::Block;

fn opts(c: Compression, e: DataBlockEncoding, b: BloomType, block_size: usize) -> TableOptions {
    TableOptions {
        block_size,
        compression: c,
        encoding: e,
        bloom_type: b,
        bloom_bits_per_key: 10,
    }
}

/// Probe targets: model keys, keys just above/below them, row prefixes and the extremes.
fn probes(model: &Model, rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let keys: Vec<_> = model.keys().collect();
    let mut out = vec![Vec::new(), vec![0xFF; 3], keys[0].clone()];
    out.push(keys[keys.len() - 1].clone());
    for _ in 0..150 {
        let k = keys[rng.random_range(0..keys.len())];
        out.push(k.clone());
        let mut above = k.clone();
        above.push(0);
        out.push(above);
        out.push(k[..k.len() - 1].to_vec());
        out.push(row_prefix_of(k).unwrap().to_vec());
    }
    out
}

fn check_against_model(table: &Arc<TableReader>, model: &Model, rng: &mut SmallRng) {
    let mut it = table.iter();
    let expected: Vec<_> = model.clone().into_iter().collect();
    assert_eq!(scan(&mut it).unwrap(), expected);
    for target in probes(model, rng) {
        it.seek(&target).unwrap();
        let want = model.range(target.clone()..).next();
        let got = it.valid().then(|| (it.key().to_vec(), it.value().to_vec()));
        assert_eq!(
            got,
            want.map(|(k, v)| (k.clone(), v.clone())),
            "seek {target:?}"
        );
        if let Some((k, _)) = model.range(target.clone()..).nth(1) {
            it.next().unwrap();
            assert_eq!(it.key(), k.as_slice(), "next after seek");
        }
        let want = model
            .range(..target.clone())
            .next_back()
            .map(|(k, _)| k.clone());
        assert_eq!(
            it.last_key_before(&target).unwrap(),
            want,
            "before {target:?}"
        );
    }
}

#[test]
fn every_codec_encoding_and_bloom_type_round_trips() {
    let mut rng = rng(11);
    let codecs = [
        Compression::None,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Snappy,
        Compression::Gz,
    ];
    let encodings = [DataBlockEncoding::None, DataBlockEncoding::Prefix];
    let blooms = [BloomType::None, BloomType::Row, BloomType::RowCol];
    for codec in codecs {
        for enc in encodings {
            for bloom in blooms {
                let n = rng.random_range(1..1500);
                let model = random_model(&mut rng, n);
                let (bytes, meta) = build(&model, opts(codec, enc, bloom, 512));
                let table = open(bytes, Some(BlockCache::new(1 << 20))).unwrap();
                assert_eq!(table.meta(), &meta);
                assert_eq!(meta.entry_count, model.len() as u64);
                assert_eq!(meta.compression, codec);
                check_against_model(&table, &model, &mut rng);
                check_bloom(&table, &model, bloom);
            }
        }
    }
}

fn check_bloom(table: &TableReader, model: &Model, bloom: BloomType) {
    for key in model.keys() {
        let parsed = crate::key::parse_key(key).unwrap();
        assert!(table.may_contain_row(&parsed.row).unwrap());
        assert!(table
            .may_contain_column(&parsed.row, &parsed.qualifier)
            .unwrap());
    }
    let absent = (0..500)
        .filter(|i| {
            !table
                .may_contain_row(format!("absent{i}").as_bytes())
                .unwrap()
        })
        .count();
    let row = crate::key::parse_key(model.keys().next().unwrap())
        .unwrap()
        .row;
    let absent_col = (0..500)
        .filter(|i| {
            let q = format!("nope{i}");
            !table.may_contain_column(&row, q.as_bytes()).unwrap()
        })
        .count();
    match bloom {
        BloomType::None => assert_eq!((absent, absent_col), (0, 0)),
        BloomType::Row => assert!(absent > 450 && absent_col == 0, "{absent} {absent_col}"),
        BloomType::RowCol => assert!(absent == 0 && absent_col > 450, "{absent} {absent_col}"),
    }
}

#[test]
fn meta_summarises_the_cells() {
    let mut rng = rng(12);
    let model = random_model(&mut rng, 700);
    let (_, meta) = build(
        &model,
        TableOptions {
            block_size: 4096,
            ..Default::default()
        },
    );
    let parsed: Vec<_> = model
        .keys()
        .map(|k| crate::key::parse_key(k).unwrap())
        .collect();
    let count = |f: fn(CellType) -> bool| parsed.iter().filter(|p| f(p.cell_type)).count() as u64;
    assert_eq!(meta.put_count, count(|t| t == CellType::Put));
    assert_eq!(meta.delete_count, count(CellType::is_delete));
    assert_eq!(meta.family_delete_count, count(CellType::is_family_marker));
    assert_eq!(meta.first_key, *model.keys().next().unwrap());
    assert_eq!(meta.last_key, *model.keys().next_back().unwrap());
    assert_eq!(
        meta.min_timestamp,
        parsed.iter().map(|p| p.timestamp).min().unwrap()
    );
    assert_eq!(
        meta.max_timestamp,
        parsed.iter().map(|p| p.timestamp).max().unwrap()
    );
    assert_eq!(meta.max_seq, parsed.iter().map(|p| p.seq).max().unwrap());
    let key_bytes: usize = model.keys().map(Vec::len).sum();
    let value_bytes: usize = model.values().map(Vec::len).sum();
    assert_eq!(meta.raw_key_bytes, key_bytes as u64);
    assert_eq!(meta.raw_value_bytes, value_bytes as u64);
    assert!(meta.data_block_count > 1);
}

#[test]
fn blocks_are_cut_at_the_target_size() {
    let mut rng = rng(13);
    let model = random_model(&mut rng, 2000);
    let raw: u64 = model.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum();
    let (small, small_meta) = build(
        &model,
        TableOptions {
            block_size: 1024,
            ..Default::default()
        },
    );
    let (_, big_meta) = build(
        &model,
        TableOptions {
            block_size: 16 * 1024,
            ..Default::default()
        },
    );
    assert!(small_meta.data_block_count > big_meta.data_block_count * 8);
    // Each block holds at least block_size raw bytes, except the last one.
    assert!(small_meta.data_block_count <= raw / 1024 + 1);
    assert!(!small.is_empty());
}

#[test]
fn single_entry_and_single_huge_value() {
    let key = make_key(b"r", b"q", 1, CellType::Put, 1);
    let mut model = Model::new();
    model.insert(key.clone(), vec![9u8; 200_000]);
    for codec in [Compression::None, Compression::Lz4] {
        let (bytes, meta) = build(
            &model,
            TableOptions {
                compression: codec,
                ..Default::default()
            },
        );
        assert_eq!(meta.data_block_count, 1);
        let table = open(bytes, None).unwrap();
        let mut it = table.iter();
        assert_eq!(
            scan(&mut it).unwrap(),
            vec![(key.clone(), vec![9u8; 200_000])]
        );
        assert_eq!(it.last_key_before(&key).unwrap(), None);
        assert_eq!(it.last_key_before(b"\xff").unwrap(), Some(key.clone()));
    }
}

#[test]
fn builder_rejects_bad_input() {
    let writer = || Box::new(VecWriter(Default::default(), false));
    let mut b = TableBuilder::new(writer(), path(), TableOptions::default());
    let k1 = make_key(b"a", b"q", 5, CellType::Put, 1);
    let k2 = make_key(b"b", b"q", 5, CellType::Put, 1);
    b.add(&k2, b"v").unwrap();
    for bad in [&k1[..], &k2[..], b"not a key"] {
        assert!(matches!(b.add(bad, b"v"), Err(Error::InvalidArgument(_))));
    }
    let mut b = TableBuilder::new(writer(), path(), TableOptions::default());
    assert!(matches!(
        b.add(b"\0\x07", b""),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(b.finish(), Err(Error::InvalidArgument(_))));
}

#[test]
fn cache_is_used_according_to_policy() {
    let mut rng = rng(14);
    let model = random_model(&mut rng, 1000);
    let (bytes, meta) = build(
        &model,
        TableOptions {
            block_size: 512,
            ..Default::default()
        },
    );
    let blocks = meta.data_block_count;

    let cache = BlockCache::new(16 << 20);
    let table = open(bytes.clone(), Some(cache.clone())).unwrap();
    assert_eq!(
        cache.stats().inserts,
        0,
        "index and bloom are pinned, not cached"
    );
    assert!(table.pinned_bytes() > 0);
    assert_eq!(
        cache.stats().index_bloom_bytes,
        table.pinned_bytes() as u64,
        "the open file's index and bloom memory is charged to the cache"
    );
    scan(&mut table.iter()).unwrap();
    let after_first = cache.stats();
    assert_eq!(after_first.inserts, blocks);
    scan(&mut table.iter()).unwrap();
    let after_second = cache.stats();
    assert_eq!(
        after_second.inserts, after_first.inserts,
        "second scan served from cache"
    );
    assert!(after_second.hits >= after_first.hits + blocks);
    let parsed = crate::key::parse_key(model.keys().next().unwrap()).unwrap();
    assert!(table.may_contain_row(&parsed.row).unwrap());
    assert_eq!(
        cache.stats().hits + cache.stats().misses,
        after_second.hits + after_second.misses,
        "the bloom check does not touch the cache"
    );

    let uncached = CachePolicy {
        cache_data_blocks: false,
        in_memory: false,
    };
    let cache = BlockCache::new(16 << 20);
    let table = TableReader::open(
        Arc::new(VecFile(bytes)),
        path(),
        Some(cache.clone()),
        uncached,
    )
    .unwrap();
    scan(&mut table.iter()).unwrap();
    assert_eq!(cache.stats().inserts, 0, "data blocks bypass the cache");
    assert_eq!(cache.tier_stats()[0].capacity_bytes, 0, "no IN_MEMORY file");
    assert!(
        cache.get(&(table.file_id(), 0)).is_none(),
        "first data block"
    );
}

#[test]
fn in_memory_data_blocks_go_to_the_high_priority_partition() {
    let mut rng = rng(15);
    let model = random_model(&mut rng, 300);
    let (bytes, _) = build(
        &model,
        TableOptions {
            block_size: 256,
            ..Default::default()
        },
    );
    let cache = BlockCache::new(1 << 20);
    let policy = CachePolicy {
        cache_data_blocks: true,
        in_memory: true,
    };
    let table = TableReader::open(
        Arc::new(VecFile(bytes)),
        path(),
        Some(cache.clone()),
        policy,
    )
    .unwrap();
    let high = cache.tier_stats()[0].capacity_bytes;
    assert!(high > 0, "the open IN_MEMORY file sized the high partition");
    scan(&mut table.iter()).unwrap();
    // Flood the normal partition with another file's blocks: the table's stay cached.
    let mut filler = vec![0u8; 1024];
    filler[1020..].copy_from_slice(&255u32.to_le_bytes()); // 255 restart slots, no entries
    let filler = Block::new(bytes::Bytes::from(filler), Arc::from(path()), 0).unwrap();
    for i in 0..4000 {
        cache.insert((u64::MAX, i), filler.clone(), Priority::Normal);
    }
    let before = cache.stats().misses;
    scan(&mut table.iter()).unwrap();
    assert_eq!(
        cache.stats().misses,
        before,
        "in-memory blocks were evicted"
    );
    drop(table);
    assert_eq!(cache.tier_stats()[0].capacity_bytes, 0, "its file closed");
}

#[test]
fn local_fs_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("000001.sst");
    let mut rng = rng(16);
    let model = random_model(&mut rng, 3000);
    let fs = LocalFs;
    let mut b = TableBuilder::new(
        fs.create(&path).unwrap(),
        path.clone(),
        TableOptions {
            compression: Compression::Zstd,
            block_size: 4096,
            ..Default::default()
        },
    );
    for (k, v) in &model {
        b.add(k, v).unwrap();
    }
    assert!(b.estimated_size() > 0);
    let meta = b.finish().unwrap();
    let size = fs.file_size(&path).unwrap();
    let table = TableReader::open(
        fs.open_read(&path).unwrap(),
        path.clone(),
        None,
        CachePolicy::default(),
    )
    .unwrap();
    assert_eq!(table.file_size(), size);
    assert_eq!(table.path(), path.as_path());
    assert_eq!(table.meta(), &meta);
    check_against_model(&table, &model, &mut rng);
    let absent = (0..100)
        .filter(|i| !table.may_contain_row(format!("zz{i}").as_bytes()).unwrap())
        .count();
    assert!(
        absent > 90,
        "bloom rejected only {absent} of 100 absent rows"
    );
}

#[test]
fn readers_and_iterators_can_cross_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    fn assert_send<T: Send>() {}
    assert_send_sync::<TableReader>();
    assert_send_sync::<BlockCache>();
    assert_send::<crate::table::iter::TableIter>();
}

#[test]
fn compaction_reads_use_but_do_not_fill_the_cache() {
    let mut rng = rng(16);
    let model = random_model(&mut rng, 500);
    let (bytes, meta) = build(
        &model,
        TableOptions {
            block_size: 512,
            ..Default::default()
        },
    );
    let cache = BlockCache::new(16 << 20);
    let table = open(bytes, Some(cache.clone())).unwrap();
    scan(&mut table.iter_without_cache_fill()).unwrap();
    assert_eq!(
        cache.stats().inserts,
        0,
        "a compaction read must not fill the cache"
    );
    scan(&mut table.iter()).unwrap();
    assert_eq!(cache.stats().inserts, meta.data_block_count);
    let hits = cache.stats().hits;
    scan(&mut table.iter_without_cache_fill()).unwrap();
    assert_eq!(
        cache.stats().hits,
        hits + meta.data_block_count,
        "cached blocks are still used"
    );
}
