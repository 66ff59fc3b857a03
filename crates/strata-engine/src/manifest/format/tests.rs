use std::path::Path;

use super::*;
use crate::manifest::test_util::StateGen;
use crate::util::coding::put_varint;

fn path() -> &'static Path {
    Path::new("store/MANIFEST-x")
}

#[test]
fn random_states_round_trip() {
    let mut gen = StateGen::new(7);
    for number in 1..200u64 {
        let state = gen.state(30);
        let bytes = encode_manifest(number, &state).unwrap();
        let decoded = decode_manifest(path(), &bytes).unwrap();
        assert_eq!(decoded.manifest_number, number);
        assert_eq!(decoded.state, state);
    }
}

#[test]
fn every_truncation_is_torn() {
    let state = StateGen::new(1).state(5);
    let bytes = encode_manifest(9, &state).unwrap();
    for cut in 0..bytes.len() {
        let defect = inspect(&bytes[..cut]).unwrap_err();
        assert!(defect.torn, "cut at {cut}: {defect:?}");
        assert!(decode_manifest(path(), &bytes[..cut])
            .unwrap_err()
            .is_corruption());
    }
}

#[test]
fn every_bit_flip_is_corruption_not_torn() {
    let state = StateGen::new(2).state(3);
    let bytes = encode_manifest(3, &state).unwrap();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut bad = bytes.clone();
            bad[i] ^= 1 << bit;
            let defect = inspect(&bad).unwrap_err();
            assert!(!defect.torn, "flip byte {i} bit {bit}: {defect:?}");
        }
    }
}

#[test]
fn zero_filled_and_overlong_files() {
    let bytes = encode_manifest(3, &ManifestState::empty()).unwrap();
    assert!(inspect(&vec![0u8; bytes.len()]).unwrap_err().torn);
    let mut long = bytes.clone();
    long.push(0);
    let defect = inspect(&long).unwrap_err();
    assert_eq!((defect.torn, defect.offset), (false, bytes.len() as u64));
}

#[test]
fn corruption_error_names_file_and_offset() {
    let mut bytes = encode_manifest(3, &ManifestState::empty()).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    match decode_manifest(path(), &bytes).unwrap_err() {
        Error::Corruption {
            path: p, offset, ..
        } => {
            assert_eq!(p, path());
            assert_eq!(offset, (bytes.len() - 4) as u64);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn unknown_optional_fields_are_skipped_and_required_ones_rejected() {
    let state = StateGen::new(3).state(2);
    let mut body = encode_body(&state);
    put_bytes_field(&mut body, 200, b"added by a later version");
    let decoded = inspect(&frame(1, 4, &body).unwrap()).unwrap();
    assert_eq!(decoded.state, state);

    let mut body = encode_body(&state);
    put_varint_field(&mut body, 40, 1);
    let defect = inspect(&frame(1, 4, &body).unwrap()).unwrap_err();
    assert!(
        defect.reason.contains("unknown required field 40"),
        "{defect:?}"
    );
}

#[test]
fn missing_fields_bad_versions_and_invariants_are_corruption() {
    let mut body = Vec::new();
    put_varint_field(&mut body, TAG_FLUSHED_SEQ, 5);
    let defect = inspect(&frame(1, 4, &body).unwrap()).unwrap_err();
    assert!(defect.reason.contains("next_file_number"), "{defect:?}");

    let body = encode_body(&ManifestState::empty());
    let defect = inspect(&frame(2, 4, &body).unwrap()).unwrap_err();
    assert_eq!((defect.offset, defect.torn), (8, false));

    let mut dup = StateGen::new(4).state(4);
    dup.files.push(dup.files[0].clone());
    let defect = inspect(&frame(1, 4, &encode_body(&dup)).unwrap()).unwrap_err();
    assert!(defect.reason.contains("twice"), "{defect:?}");
}

#[test]
fn garbage_never_panics() {
    // Random bytes behind a valid header and CRC exercise every body decoding path.
    let mut gen = StateGen::new(5);
    for _ in 0..300 {
        let mut body = Vec::new();
        put_varint(&mut body, TAG_FILE);
        body.extend(
            gen.state(1)
                .files
                .first()
                .map(encode_file)
                .unwrap_or_default(),
        );
        let mut noise = encode_body(&gen.state(2));
        let len = noise.len();
        if len > 0 {
            noise[len / 2] ^= 0x5a;
        }
        body.extend(noise);
        let _ = inspect(&frame(1, 1, &body).unwrap());
    }
}
