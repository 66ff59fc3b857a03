//! Requests encoded by pilota (see `requests()` in the parent module), then altered to declare
//! other element types or counts in their container headers.

use std::panic::{catch_unwind, AssertUnwindSafe};

use bytes::Bytes;
use pilota::thrift::binary::TBinaryProtocol;
use pilota::thrift::TInputProtocol;
use volo_thrift::EntryMessage;

use super::{decode_buffered, decode_error, decode_framed, requests};
use crate::binary_check::{check_binary_message, CheckError};
use crate::gen::volo_gen::hbase::HbaseRequestRecv;
/// Where a container's header sits in a binary message, found by walking the declared types.
#[derive(Debug, Clone, Copy)]
pub(super) struct Header {
    /// The element type byte (a map has two).
    pub(super) types_at: usize,
    types: usize,
    count_at: usize,
}

pub(super) fn headers(msg: &[u8]) -> Vec<Header> {
    let name_len = i32::from_be_bytes(msg[4..8].try_into().unwrap()) as usize;
    let mut at = 8 + name_len + 4;
    let mut out = Vec::new();
    skim(msg, &mut at, 12, &mut out);
    assert_eq!(at, msg.len(), "the test walk reads the whole message");
    out
}

fn skim(msg: &[u8], at: &mut usize, ttype: u8, out: &mut Vec<Header>) {
    let int = |at: usize| i32::from_be_bytes(msg[at..at + 4].try_into().unwrap()) as usize;
    match ttype {
        2 | 3 => *at += 1,
        6 => *at += 2,
        8 => *at += 4,
        4 | 10 => *at += 8,
        11 => *at += 4 + int(*at),
        12 => loop {
            let field_type = msg[*at];
            *at += 1;
            if field_type == 0 {
                return;
            }
            *at += 2;
            skim(msg, at, field_type, out);
        },
        13..=15 => {
            let types = if ttype == 13 { 2 } else { 1 };
            let header = Header {
                types_at: *at,
                types,
                count_at: *at + types,
            };
            out.push(header);
            *at = header.count_at + 4;
            let elem = msg[header.types_at..header.count_at].to_vec();
            for _ in 0..int(header.count_at) {
                for &t in &elem {
                    skim(msg, at, t, out);
                }
            }
        }
        t => panic!("type {t}"),
    }
}

#[test]
fn every_element_type_mismatch_is_rejected() {
    for (method, binary, _) in requests() {
        let found = headers(&binary);
        assert!(!found.is_empty(), "{method} has containers");
        for header in found {
            for slot in 0..header.types {
                let mut lying = binary.clone();
                let at = header.types_at + slot;
                // i64 where the IDL has strings or structs; string where it has i64 (none do).
                lying[at] = if lying[at] == 10 { 11 } else { 10 };
                let err = check_binary_message(&lying).unwrap_err();
                let CheckError::Invalid(reason) = &err else {
                    panic!("{method}: {err:?}");
                };
                assert!(reason.starts_with(&format!("{method}: field ")), "{reason}");
                assert!(reason.contains("the schema says"), "{reason}");
                let seen = decode_error(decode_framed(&lying));
                assert!(seen.contains(reason.as_str()), "{seen}");
                assert!(decode_error(decode_buffered(&lying)).contains(reason.as_str()));
            }
        }
    }
}

#[test]
fn mismatch_errors_name_the_method_field_and_both_types() {
    let (_, mut binary, _) = requests().swap_remove(0);
    // The second container of mutateRows is the first BatchMutation's list of Mutations.
    let inner = headers(&binary)[1];
    binary[inner.types_at] = 10;
    assert_eq!(
        check_binary_message(&binary),
        Err(CheckError::Invalid(
            "mutateRows: field 2.2 declares list<i64>, the schema says list<struct Mutation>"
                .into()
        ))
    );
}

/// xorshift64*: a fixed seed keeps every run (and any failure) reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const TYPES: [u8; 14] = [0, 1, 2, 3, 4, 6, 8, 10, 11, 12, 13, 14, 15, 16];

/// One random lie in a container header: an element type or a count.
fn mutate(rng: &mut Rng, msg: &mut [u8], found: &[Header]) {
    let header = found[rng.below(found.len())];
    if rng.below(2) == 0 {
        let at = header.types_at + rng.below(header.types);
        msg[at] = TYPES[rng.below(TYPES.len())];
    } else {
        let old = i32::from_be_bytes(
            msg[header.count_at..header.count_at + 4]
                .try_into()
                .unwrap(),
        );
        let random = rng.next() as i32 & 0xff_ffff;
        let near = [
            old.wrapping_sub(1),
            old.wrapping_add(1),
            old.wrapping_mul(2),
        ];
        let counts = [0, near[0], near[1], near[2], i32::MAX, -1, 1 << 20, random];
        let count = counts[rng.below(counts.len())];
        msg[header.count_at..header.count_at + 4].copy_from_slice(&count.to_be_bytes());
    }
}

/// Whatever a request's container headers say, the check rejects it or pilota decodes it
/// without panicking (and without reserving absurd memory: that would abort this process).
#[test]
fn randomized_container_lies_are_rejected_or_decode_safely() {
    let mut rng = Rng(0x05ee_d0f7_ab1e);
    let mut passed = 0;
    for (method, binary, _) in requests() {
        let found = headers(&binary);
        for _ in 0..300 {
            let mut lying = binary.clone();
            for _ in 0..1 + rng.below(3) {
                mutate(&mut rng, &mut lying, &found);
            }
            if check_binary_message(&lying).is_err() {
                continue;
            }
            passed += 1;
            let decoded = catch_unwind(AssertUnwindSafe(|| {
                let mut bytes = Bytes::from(lying.clone());
                let mut p = TBinaryProtocol::new(&mut bytes, true);
                let ident = p.read_message_begin().unwrap();
                HbaseRequestRecv::decode(&mut p, &ident).map(|_| ())
            }));
            assert!(decoded.is_ok(), "{method}: pilota panicked on {lying:?}");
            let served = decode_framed(&lying);
            if let Err(e) = served {
                assert!(!e.to_string().contains("panicked"), "{method}: {e}");
            }
        }
    }
    // Some lies are harmless (a count of 0, a type in a skipped field): both outcomes occur.
    assert!(passed > 0, "no altered request passed the check");
}

/// Random byte flips in compact requests (transcoded, then checked like binary ones): the
/// server's decode returns, and never by containing a decoder panic.
#[test]
fn randomized_compact_byte_flips_never_reach_a_decoder_panic() {
    let mut rng = Rng(0xc0_ffee);
    for (method, _, compact) in requests() {
        for _ in 0..500 {
            let mut lying = compact.clone();
            for _ in 0..1 + rng.below(3) {
                let at = 7 + rng.below(lying.len() - 7);
                lying[at] = rng.next() as u8;
            }
            for decoded in [decode_framed(&lying), decode_buffered(&lying)] {
                if let Err(e) = decoded {
                    assert!(!e.to_string().contains("panicked"), "{method}: {e}");
                }
            }
        }
    }
}
