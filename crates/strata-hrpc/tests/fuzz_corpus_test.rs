//! Replays the committed inputs of the native RPC fuzz targets (`hrpc_connection`,
//! `hrpc_request`, `hrpc_cell_block`, `hrpc_scan`; see `fuzz/`) on stable Rust, and feeds
//! the same entry points random and mutated bytes.
#![allow(clippy::unwrap_used)]

use strata_hrpc::fuzz_support::{cell_block, connection, request, scan};

#[path = "../../../fuzz/replay.rs"]
mod replay;

/// The seeds a target's replay must find, by file name ending.
fn seed(target: &str, name: &str) -> Vec<u8> {
    let found: Vec<_> = replay::inputs(target)
        .into_iter()
        .filter(|(path, _)| path.ends_with(&format!("/{name}")))
        .collect();
    assert_eq!(found.len(), 1, "{target}/{name} is committed once");
    found.into_iter().next().unwrap().1
}

#[test]
fn hrpc_connection_corpus() {
    replay::replay("hrpc_connection", |bytes| {
        connection(bytes);
    });
    // Each call seed is a whole session: every one of its frames is read.
    for (name, frames) in [("get", 1), ("put_with_cells", 1), ("pipelined", 4)] {
        assert_eq!(connection(&seed("hrpc_connection", name)), frames, "{name}");
    }
    // A call frame declaring 64 MiB (the limit) and carrying a few bytes ends without
    // reserving it (the entry point's reader fails on a read offered more than arrived).
    assert_eq!(connection(&seed("hrpc_connection", "huge_frame_length")), 0);
}

#[test]
fn hrpc_request_corpus() {
    replay::replay("hrpc_request", |bytes| {
        request(bytes);
    });
    for name in [
        "get",
        "get_filtered",
        "scan_open",
        "mutate_put",
        "multi_cells",
    ] {
        assert!(request(&seed("hrpc_request", name)), "{name} decodes");
    }
}

#[test]
fn hrpc_cell_block_corpus() {
    replay::replay("hrpc_cell_block", |bytes| {
        cell_block(bytes);
    });
    assert_eq!(cell_block(&seed("hrpc_cell_block", "three_cells")), 3);
    assert_eq!(cell_block(&seed("hrpc_cell_block", "tagged")), 1);
}

#[test]
fn hrpc_scan_corpus() {
    replay::replay("hrpc_scan", |bytes| {
        scan(bytes);
    });
    // A full scan answers every candidate row once over the four regions of the check,
    // so more than none.
    assert!(scan(&seed("hrpc_scan", "all")) > 0);
}

/// Finding 1 of the hrpc_scan model (found by the mutated-seed test before the fuzzer ran):
/// a reversed scan starting above its region's end answered the rows of the regions above.
#[test]
fn hrpc_scan_reversed_start_above_region_end() {
    replay::replay_one("hrpc_scan", "reversed_start_above_region_end", |bytes| {
        // Each of the four regions answers its own candidate rows below "z".
        assert!(scan(bytes) > 0);
    });
}

/// A small repeatable generator (splitmix64), so the test needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `range` (`range.start < range.end`).
    fn below(&mut self, range: std::ops::Range<usize>) -> usize {
        range.start + (self.next() % (range.end - range.start) as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

fn random_bytes(rng: &mut Rng, prefix: &[u8], max: usize) -> Vec<u8> {
    let len = rng.below(0..max);
    let mut bytes = prefix.to_vec();
    bytes.extend((0..len).map(|_| rng.byte()));
    bytes
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for _ in 0..rng.below(1..6) {
        if bytes.is_empty() {
            break;
        }
        let at = rng.below(0..bytes.len());
        match rng.below(0..4) {
            0 => bytes[at] = rng.byte(),
            1 => bytes.truncate(at),
            2 => bytes.insert(at, rng.byte()),
            // A length field's high byte: large values are where limits matter.
            _ => bytes[at] = 0xff,
        }
    }
    bytes
}

#[test]
fn random_bytes_never_break_the_decoders() {
    let mut rng = Rng(0x4862_6173);
    // Half behind a valid preamble, so the random part reaches the header decoder.
    for i in 0..5_000 {
        let prefix: &[u8] = if i % 2 == 0 { b"HBas\x00\x50" } else { b"" };
        connection(&random_bytes(&mut rng, prefix, 256));
        request(&random_bytes(&mut rng, b"", 256));
        cell_block(&random_bytes(&mut rng, b"", 256));
        scan(&random_bytes(&mut rng, b"", 128));
    }
}

#[test]
fn mutated_seeds_never_break_the_decoders() {
    let mut rng = Rng(0x7270_6321);
    type Entry = fn(&[u8]);
    let targets: [(&str, Entry); 4] = [
        ("hrpc_connection", |b| {
            connection(b);
        }),
        ("hrpc_request", |b| {
            request(b);
        }),
        ("hrpc_cell_block", |b| {
            cell_block(b);
        }),
        ("hrpc_scan", |b| {
            scan(b);
        }),
    ];
    for (target, entry) in targets {
        let seeds = replay::inputs(target);
        for _ in 0..5_000 {
            let (_, seed) = &seeds[rng.below(0..seeds.len())];
            entry(&mutate(&mut rng, seed));
        }
    }
}
