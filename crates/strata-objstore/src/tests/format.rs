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
fn with_seq(mut e: strata_engine::wal::WalEdit) -> strata_engine::wal::WalEdit {
    let seq = e.seq;
    e.cells.iter_mut().for_each(|c| c.seq = seq);
    e
}

#[test]
fn framed_group_commit_bytes_build_the_same_object() {
    let edits = [edit(2, 10), edit(1, 11), edit(2, 12)];
    let mut framed = Vec::new();
    for e in &edits {
        let record = strata_engine::wal::format::encode_record(1, |b| e.encode_payload(b)).unwrap();
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
