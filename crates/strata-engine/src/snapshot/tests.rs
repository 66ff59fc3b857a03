use std::path::Path;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::error::Error;
use crate::manifest::FileOrigin;

fn entry(rng: &mut SmallRng, n: u64, ranged: bool) -> StoreFileEntry {
    StoreFileEntry {
        file_number: n,
        volume: "ssd0".into(),
        relative_path: format!("snapshots/s/0000000000000001/cf/{n:016}.sst"),
        size: rng.random_range(0..1 << 30),
        entries: rng.random(),
        min_ts: rng.random(),
        max_ts: rng.random(),
        max_seq: rng.random(),
        first_key: vec![rng.random::<u8>(); rng.random_range(0..8)],
        last_key: vec![rng.random::<u8>(); rng.random_range(0..8)],
        origin: if rng.random::<bool>() {
            FileOrigin::Flush
        } else {
            FileOrigin::Compaction
        },
        created_at_ms: rng.random(),
        range: ranged.then(|| RowRange {
            start: b"a".to_vec(),
            end: b"m".to_vec(),
        }),
    }
}

fn descriptor(seed: u64) -> SnapshotDescriptor {
    let mut rng = SmallRng::seed_from_u64(seed);
    let regions = (0..rng.random_range(0..4))
        .map(|r| SnapshotRegion {
            id: r,
            rows: RowRange {
                start: vec![r as u8],
                end: if r == 3 { vec![] } else { vec![r as u8 + 1] },
            },
            stores: (0..rng.random_range(0..3))
                .map(|s| SnapshotStore {
                    family: format!("cf{s}").into_bytes(),
                    files: (0..rng.random_range(0..4))
                        .map(|n| SnapshotFile {
                            entry: entry(&mut rng, n, n % 2 == 1),
                            origin_volume: "ssd0".into(),
                            origin_path: format!("regions/{r:016x}/cf{s}/{n:016}.sst"),
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    SnapshotDescriptor {
        name: format!("snap-{seed}"),
        table: vec![seed as u8; 5],
        created_at_ms: 1_700_000_000_000 + seed as i64,
        regions,
    }
}

fn path() -> &'static Path {
    Path::new("snapshots/s/descriptor")
}

#[test]
fn descriptors_round_trip() {
    for seed in 0..200 {
        let d = descriptor(seed);
        let bytes = encode_descriptor(&d).unwrap();
        assert_eq!(decode_descriptor(path(), &bytes).unwrap(), d, "seed {seed}");
    }
}

#[test]
fn every_truncation_and_bit_flip_is_corruption() {
    let bytes = encode_descriptor(&descriptor(7)).unwrap();
    for len in 0..bytes.len() {
        let err = decode_descriptor(path(), &bytes[..len]).unwrap_err();
        assert!(matches!(err, Error::Corruption { .. }), "len {len}: {err}");
    }
    for bit in 0..bytes.len() * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        let err = decode_descriptor(path(), &flipped).unwrap_err();
        assert!(matches!(err, Error::Corruption { .. }), "bit {bit}: {err}");
    }
}

#[test]
fn garbage_never_panics() {
    let mut rng = SmallRng::seed_from_u64(3);
    for _ in 0..2000 {
        let len = rng.random_range(0..200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        assert!(decode_descriptor(path(), &bytes).is_err());
    }
}

#[test]
fn names_follow_hbase_table_qualifier_rules() {
    for good in ["s", "snap_1", "t1-2024.11.26", "_x", "0abc"] {
        check_name(good).unwrap();
    }
    let long = "a".repeat(MAX_NAME_LEN + 1);
    for bad in [
        "",
        ".hidden",
        "-x",
        "a/b",
        "..",
        "a b",
        "snap\0",
        "ü",
        long.as_str(),
    ] {
        let err = check_name(bad).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{bad:?}: {err}");
    }
}

#[test]
fn file_paths_stay_inside_the_snapshot_directory() {
    let p = file_path("s1", 0x2a, b"cf", 7);
    assert_eq!(
        p,
        Path::new("snapshots/s1/000000000000002a/cf/0000000000000007.sst")
    );
}
