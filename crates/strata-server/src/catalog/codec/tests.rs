use super::*;

#[test]
fn round_trip_keeps_every_setting() {
    let mut f = FamilyOptions::new("cf");
    f.max_versions = 3;
    f.min_versions = 1;
    f.ttl_seconds = Some(0);
    f.keep_deleted_cells = KeepDeletedCells::Ttl;
    f.compression = Compression::Zstd;
    f.data_block_encoding = DataBlockEncoding::None;
    f.bloom_type = BloomType::RowCol;
    f.block_cache_enabled = false;
    f.in_memory = true;
    let record = TableRecord {
        families: vec![f, FamilyOptions::new("other")],
        enabled: false,
        regions: vec![RegionEntry {
            id: 7,
            start_key: Bytes::new(),
            end_key: Bytes::from_static(b"m"),
        }],
        durability: WriteDurability::AsyncWal,
        metadata: SchemaMetadata::default(),
    };
    assert_eq!(decode_table(&encode_table(&record)).unwrap(), record);
}

#[test]
fn round_trip_keeps_the_bigtable_gc_rule() {
    let mut f = FamilyOptions::new("cf");
    f.bigtable_gc_rule = Some(Bytes::from_static(b"\x22\x04\x0a\x02\x08\x02"));
    let record = TableRecord {
        families: vec![FamilyOptions::new("plain"), f],
        enabled: true,
        regions: vec![],
        durability: WriteDurability::UseDefault,
        metadata: SchemaMetadata::default(),
    };
    let decoded = decode_table(&encode_table(&record)).unwrap();
    assert_eq!(decoded, record);
    assert_eq!(decoded.families[0].bigtable_gc_rule, None);
}

/// A version 1 record, written out by hand from docs/format.md: catalogs written before
/// family entries had a GC rule must stay readable.
#[test]
fn version_1_records_are_read() {
    let v1: &[u8] = &[
        1, 1, // version 1, enabled
        1, // one family
        2, b'c', b'f', // name
        3, 0, 61, // VERSIONS 3, MIN_VERSIONS 0, TTL 60 (stored + 1)
        0, 0x80, 0x80, 0x04, // KEEP_DELETED_CELLS false, block size 65536
        2, 1, 2, 0, 1, // zstd, prefix encoding, ROWCOL bloom, no block cache, in memory
        1, 7, 0, 1, b'm', // one region: id 7, [ "", "m" )
    ];
    let record = decode_table(v1).unwrap();
    let f = &record.families[0];
    assert_eq!(f.name, b"cf");
    assert_eq!(
        (f.max_versions, f.min_versions, f.ttl_seconds),
        (3, 0, Some(60))
    );
    assert_eq!(f.block_size, 65536);
    assert_eq!(f.compression, Compression::Zstd);
    assert_eq!(f.bloom_type, BloomType::RowCol);
    assert!(!f.block_cache_enabled && f.in_memory);
    assert_eq!(f.bigtable_gc_rule, None);
    assert_eq!(record.regions[0].id, 7);
    assert_eq!(record.regions[0].end_key, Bytes::from_static(b"m"));
    assert_eq!(record.durability, WriteDurability::UseDefault);
    // The same record written today is the current version, and reads back the same.
    let current = encode_table(&record);
    assert_eq!(current[0], RECORD_VERSION);
    assert_eq!(decode_table(&current).unwrap(), record);
}

#[test]
fn unknown_versions_are_corrupt() {
    let mut bytes = encode_table(&TableRecord {
        families: vec![FamilyOptions::new("cf")],
        enabled: true,
        regions: vec![],
        durability: WriteDurability::UseDefault,
        metadata: SchemaMetadata::default(),
    });
    for version in [0, RECORD_VERSION + 1, u8::MAX] {
        bytes[0] = version;
        assert!(decode_table(&bytes).is_err(), "version {version}");
    }
}

#[test]
fn truncated_records_are_corrupt_not_panics() {
    let mut with_rule = FamilyOptions::new("cf");
    with_rule.bigtable_gc_rule = Some(Bytes::from_static(b"\x08\x03"));
    let bytes = encode_table(&TableRecord {
        families: vec![with_rule],
        enabled: true,
        regions: vec![],
        durability: WriteDurability::UseDefault,
        metadata: SchemaMetadata::default(),
    });
    for cut in 0..bytes.len() {
        assert!(decode_table(&bytes[..cut]).is_err(), "cut at {cut}");
    }
}

fn one_region_table(durability: WriteDurability) -> TableRecord {
    TableRecord {
        families: vec![FamilyOptions::new("cf")],
        enabled: true,
        regions: vec![RegionEntry {
            id: 5,
            start_key: Bytes::new(),
            end_key: Bytes::new(),
        }],
        durability,
        metadata: SchemaMetadata::default(),
    }
}

#[test]
fn every_durability_round_trips_in_the_last_byte() {
    for durability in [
        WriteDurability::UseDefault,
        WriteDurability::SkipWal,
        WriteDurability::AsyncWal,
        WriteDurability::SyncWal,
        WriteDurability::FsyncWal,
    ] {
        let record = one_region_table(durability);
        let bytes = encode_table(&record);
        assert_eq!(bytes[0], RECORD_VERSION);
        // Then the table's empty metadata: no attributes, no configuration.
        assert_eq!(
            bytes[bytes.len() - 3..],
            [durability_code(durability), 0, 0]
        );
        assert_eq!(decode_table(&bytes).unwrap(), record);
    }
}

/// Where the STORAGE_POLICY name of `one_region_table`'s only family sits: after the
/// header (3 bytes) and the family's 16 bytes up to and including its empty GC rule.
const ONE_FAMILY_POLICY_BYTE: usize = 19;

/// Where the ROW_CACHE flag of `one_region_table`'s only family sits: after its empty
/// STORAGE_POLICY name.
const ONE_FAMILY_ROW_CACHE_BYTE: usize = ONE_FAMILY_POLICY_BYTE + 1;

/// Where the metadata of `one_region_table`'s only family starts: after its ROW_CACHE flag.
const ONE_FAMILY_METADATA_BYTE: usize = ONE_FAMILY_ROW_CACHE_BYTE + 1;

/// `record` (empty metadata everywhere) as version 5 wrote it: no metadata in the family
/// entry or at the end.
fn as_version_5(record: &TableRecord) -> Vec<u8> {
    let mut v5 = encode_table(record);
    let family_metadata: Vec<u8> = v5
        .drain(ONE_FAMILY_METADATA_BYTE..ONE_FAMILY_METADATA_BYTE + 2)
        .collect();
    assert_eq!(family_metadata, [0, 0], "a family without metadata");
    assert_eq!(
        v5.split_off(v5.len() - 2),
        [0, 0],
        "a table without metadata"
    );
    v5[0] = 5;
    v5
}

/// `record` as version 4 wrote it: no ROW_CACHE byte.
fn as_version_4(record: &TableRecord) -> Vec<u8> {
    let mut v4 = as_version_5(record);
    assert_eq!(
        v4.remove(ONE_FAMILY_ROW_CACHE_BYTE),
        0,
        "a family without the row cache"
    );
    v4[0] = 4;
    v4
}

/// `record` as version 3 wrote it: no STORAGE_POLICY byte either.
fn as_version_3(record: &TableRecord) -> Vec<u8> {
    let mut v3 = as_version_4(record);
    assert_eq!(
        v3.remove(ONE_FAMILY_POLICY_BYTE),
        0,
        "a family without a policy"
    );
    v3[0] = 3;
    v3
}

#[test]
fn version_4_records_have_no_row_cache() {
    let record = one_region_table(WriteDurability::SyncWal);
    assert_eq!(decode_table(&as_version_4(&record)).unwrap(), record);
}

#[test]
fn the_row_cache_flag_round_trips_and_other_values_are_corrupt() {
    let mut record = one_region_table(WriteDurability::UseDefault);
    record.families[0].row_cache = true;
    let mut bytes = encode_table(&record);
    assert_eq!(bytes[ONE_FAMILY_ROW_CACHE_BYTE], 1);
    assert_eq!(decode_table(&bytes).unwrap(), record);
    bytes[ONE_FAMILY_ROW_CACHE_BYTE] = 2;
    assert!(matches!(
        decode_table(&bytes),
        Err(ServiceError::CatalogCorrupt(m)) if m.contains("bad family")
    ));
}

#[test]
fn version_3_records_have_no_storage_policy() {
    let record = one_region_table(WriteDurability::SyncWal);
    assert_eq!(decode_table(&as_version_3(&record)).unwrap(), record);
}

#[test]
fn every_storage_policy_round_trips_by_name_and_unknown_names_are_kept() {
    for policy in StoragePolicy::ALL {
        let mut record = one_region_table(WriteDurability::UseDefault);
        record.families[0].storage_policy = Some(policy);
        let bytes = encode_table(&record);
        let name = policy.name().as_bytes();
        let at = ONE_FAMILY_POLICY_BYTE + 1;
        assert_eq!(&bytes[at..at + name.len()], name);
        assert_eq!(decode_table(&bytes).unwrap(), record);
    }
    let with_name = |name: &[u8]| {
        let mut bytes = encode_table(&one_region_table(WriteDurability::UseDefault));
        let mut field = vec![u8::try_from(name.len()).unwrap()];
        field.extend_from_slice(name);
        bytes.splice(ONE_FAMILY_POLICY_BYTE..=ONE_FAMILY_POLICY_BYTE, field);
        bytes
    };
    // A policy this server's configuration does not define (anymore): kept by name, so
    // the catalog stays readable and the name is written back unchanged.
    let decoded = decode_table(&with_name(b"CODEC_TEST_FAST")).unwrap();
    let kept = decoded.families[0].storage_policy.unwrap();
    assert_eq!(kept.name(), "CODEC_TEST_FAST");
    assert_eq!(decode_table(&encode_table(&decoded)).unwrap(), decoded);
    // Bytes that cannot be a policy name are corruption.
    for bad in [&b"lower case"[..], &[0xff, 0xfe][..]] {
        assert!(matches!(
            decode_table(&with_name(bad)),
            Err(ServiceError::CatalogCorrupt(m)) if m.contains("bad family")
        ));
    }
}

/// A version 2 record (GC rules, no durability byte) reads as USE_DEFAULT.
#[test]
fn version_2_records_read_as_use_default() {
    let record = one_region_table(WriteDurability::FsyncWal);
    let mut v2 = as_version_3(&record);
    v2[0] = 2;
    v2.pop();
    let decoded = decode_table(&v2).unwrap();
    assert_eq!(decoded.durability, WriteDurability::UseDefault);
    assert_eq!(decoded.families, record.families);
}

#[test]
fn bad_durability_codes_and_trailing_bytes_are_corrupt() {
    let mut bytes = as_version_5(&one_region_table(WriteDurability::FsyncWal));
    *bytes.last_mut().unwrap() = 9;
    assert!(matches!(
        decode_table(&bytes),
        Err(ServiceError::CatalogCorrupt(m)) if m.contains("durability")
    ));
    let mut extra = encode_table(&one_region_table(WriteDurability::SyncWal));
    extra.push(2);
    assert!(decode_table(&extra).is_err());
}

#[test]
fn version_5_records_have_no_metadata() {
    let mut record = one_region_table(WriteDurability::AsyncWal);
    record.families[0].row_cache = true;
    let v5 = as_version_5(&record);
    assert_eq!(v5[0], 5);
    assert_eq!(decode_table(&v5).unwrap(), record);
}

fn with_metadata(pairs: &[(&[u8], &[u8])], config: &[(&str, &str)]) -> SchemaMetadata {
    let mut m = SchemaMetadata::default();
    for (k, v) in pairs {
        m.attributes
            .insert(Bytes::copy_from_slice(k), Bytes::copy_from_slice(v));
    }
    for (k, v) in config {
        m.configuration.insert(k.to_string(), v.to_string());
    }
    m
}

#[test]
fn table_and_family_metadata_round_trip_byte_exact() {
    let mut record = one_region_table(WriteDurability::UseDefault);
    record.metadata = with_metadata(
        &[
            (b"REGION_REPLICATION", b"1"),
            (b"SPLIT_POLICY", b"a.B"),
            (b"\x00k", b"\xff"),
        ],
        &[("hbase.hregion.max.filesize", "1073741824")],
    );
    record.families[0].metadata = with_metadata(&[(b"user", b"\x01\x02")], &[("c", "d")]);
    record.families.push(FamilyOptions::new("plain"));
    let bytes = encode_table(&record);
    let decoded = decode_table(&bytes).unwrap();
    assert_eq!(decoded, record);
    assert_eq!(encode_table(&decoded), bytes, "written back byte for byte");
    for cut in 0..bytes.len() {
        assert!(decode_table(&bytes[..cut]).is_err(), "cut at {cut}");
    }
}
