use bytes::Bytes;

use super::{batch, edit, Harness};
use crate::format::{
    decode_footer, decode_section, ObjectHeader, ObjectKind, Trailer, TRAILER_LEN,
};
use crate::token::WriterToken;
use crate::WalObjectBuilder;

fn header() -> ObjectHeader {
    ObjectHeader {
        kind: ObjectKind::Batch,
        server_id: 11,
        incarnation: 1,
        object_id: 0,
        token: WriterToken([1; 16]),
        created_at_ms: 5,
    }
}

fn sample_object() -> Bytes {
    batch(&[edit(2, 10), edit(1, 11), edit(2, 12), edit(3, 13)]).finish(&header())
}

#[test]
fn sections_group_edits_by_region_in_order() {
    let bytes = sample_object();
    let trailer =
        Trailer::decode(&bytes[bytes.len() - TRAILER_LEN..], "o", bytes.len() as u64).unwrap();
    let start = trailer.footer_offset as usize;
    let footer = &bytes[start..start + trailer.footer_len as usize];
    let entries = decode_footer(footer, "o", trailer.footer_offset).unwrap();
    let regions: Vec<u64> = entries.iter().map(|e| e.region_id).collect();
    assert_eq!(regions, [1, 2, 3]);
    let two = entries[1];
    assert_eq!((two.min_seq, two.max_seq, two.records), (10, 12, 2));
    let section = bytes.slice(two.offset as usize..(two.offset + two.len) as usize);
    let edits = decode_section(&section, &two, "o").unwrap();
    assert_eq!(
        edits,
        vec![edit(2, 10), edit(2, 12)]
            .into_iter()
            .map(with_seq)
            .collect::<Vec<_>>()
    );
}

/// Decoding sets every cell's seq to its edit's.
fn with_seq(mut e: strata_engine::codec::WalEdit) -> strata_engine::codec::WalEdit {
    let seq = e.seq;
    e.cells.iter_mut().for_each(|c| c.seq = seq);
    e
}

#[test]
fn framed_group_commit_bytes_build_the_same_object() {
    let edits = [edit(2, 10), edit(1, 11), edit(2, 12)];
    let mut framed = Vec::new();
    for e in &edits {
        let record = strata_engine::codec::encode_record(1, |b| e.encode_payload(b)).unwrap();
        framed.extend_from_slice(&record);
    }
    let mut from_framed = WalObjectBuilder::new();
    from_framed.add_framed_records(&framed).unwrap();
    assert_eq!(
        from_framed.finish(&header()),
        batch(&edits).finish(&header())
    );
    framed.pop();
    let err = WalObjectBuilder::new()
        .add_framed_records(&framed)
        .unwrap_err();
    assert!(err.to_string().contains("group commit batch"), "{err}");
}

#[test]
fn a_flipped_byte_anywhere_is_an_error_naming_object_and_offset() {
    let h = Harness::new();
    let bytes = sample_object();
    let mut seen_ok = 0;
    for i in 0..bytes.len() {
        let mut damaged = bytes.to_vec();
        damaged[i] ^= 0x20;
        let path = h.stream.object_path(0);
        let store = h.master_store.inner().clone();
        h.master_store
            .block_on(object_store::ObjectStoreExt::put(
                store.as_ref(),
                &path,
                damaged.into(),
            ))
            .unwrap();
        let reader =
            crate::StreamReader::new(h.master_store.clone(), h.stream, super::deps(1).retry);
        let object = crate::list_stream(&h.master_store, h.stream, &super::deps(1).retry)
            .unwrap()
            .remove(0);
        let mut result: crate::Result<()> = Ok(());
        for region in 1..=3 {
            match reader.read_region(&object, region, 0..=u64::MAX) {
                Ok(_) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        match result {
            Err(e) => {
                assert!(
                    e.kind() == crate::ErrorKind::Corruption
                        && e.to_string().contains(path.as_ref()),
                    "flip at {i}: {e}"
                );
            }
            Ok(_) => seen_ok += 1,
        }
    }
    assert_eq!(seen_ok, 0, "every flipped byte must be caught");
}

/// The example of `docs/format.md`, "WAL objects": region 7, seq 300, one Put.
fn golden_object() -> Bytes {
    let header = ObjectHeader {
        kind: ObjectKind::Batch,
        server_id: 5,
        incarnation: 2,
        object_id: 9,
        token: WriterToken(*b"0123456789abcdef"),
        created_at_ms: 1_700_000_000_000,
    };
    let put = strata_engine::Cell::put("row", "cf", "q", 1000, "val");
    batch(&[strata_engine::codec::WalEdit::new(7, 300, vec![put])]).finish(&header)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn golden_bytes_match_the_spec() {
    let expected = concat!(
        // header: magic, version 1, kind 1 (batch) + 3 reserved, server 5, incarnation 2,
        // object 9, token, created_at, crc
        "5354524154574c4f",
        "01000000",
        "01000000",
        "0500000000000000",
        "0200000000000000",
        "0900000000000000",
        "30313233343536373839616263646566",
        "0068e5cf8b010000",
        "878aae5f",
        // region 7's section, one record: len 26, crc, type 1, payload
        "1a000000",
        "82117dd0",
        "01",
        "07ac0201",
        "03726f77",
        "026366",
        "0171",
        "e803000000000000",
        "04",
        "0376616c",
        // footer: 1 entry (region 7, offset 68, len 35, seqs 300..=300, 1 record), crc
        "01000000",
        "0700000000000000",
        "4400000000000000",
        "2300000000000000",
        "2c01000000000000",
        "2c01000000000000",
        "01000000",
        "d60b37e0",
        // trailer: footer at 103, 52 bytes long, magic, crc
        "6700000000000000",
        "34000000",
        "5354524154574c54",
        "ca407c93",
    );
    assert_eq!(hex(&golden_object()), expected);
}
