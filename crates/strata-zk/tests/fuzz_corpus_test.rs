//! Replays the committed inputs of the `zk_session` fuzz target (see `fuzz/`) on stable
//! Rust, and feeds the same entry point random and mutated bytes.
#![allow(clippy::unwrap_used)]

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_zk::fuzz_support::session_bytes;

#[path = "../../../fuzz/replay.rs"]
mod replay;

#[test]
fn zk_session_corpus() {
    replay::replay("zk_session", |bytes| {
        session_bytes(bytes);
    });
    let inputs = replay::inputs("zk_session");
    for (name, bytes) in &inputs {
        let answered = session_bytes(bytes);
        // Each seed is a valid handshake followed by at least one request it answers.
        assert!(answered > 0, "{name}: nothing answered");
    }
    let reads = inputs.iter().find(|(n, _)| n.ends_with("/reads")).unwrap();
    assert_eq!(
        session_bytes(&reads.1),
        8,
        "every read of the seed is answered"
    );
}

#[test]
fn random_bytes_never_break_the_decoder() {
    // Half behind a valid connect request, so the random part reaches the request decoder.
    let seeds = replay::inputs("zk_session");
    let reads = &seeds.iter().find(|(n, _)| n.ends_with("/reads")).unwrap().1;
    let connect = &reads[..4 + 45];
    let mut rng = SmallRng::seed_from_u64(0x5a4b);
    for i in 0..20_000 {
        let len = rng.random_range(0..512);
        let mut bytes = if i % 2 == 0 {
            connect.to_vec()
        } else {
            Vec::new()
        };
        bytes.extend((0..len).map(|_| rng.random::<u8>()));
        session_bytes(&bytes);
    }
}

#[test]
fn mutated_seeds_never_break_the_decoder() {
    let mut rng = SmallRng::seed_from_u64(0x200b);
    let seeds = replay::inputs("zk_session");
    for _ in 0..20_000 {
        let (_, seed) = &seeds[rng.random_range(0..seeds.len())];
        let mut bytes = seed.clone();
        for _ in 0..rng.random_range(1..6) {
            let at = rng.random_range(0..bytes.len());
            match rng.random_range(0..3) {
                0 => bytes[at] = rng.random(),
                1 => bytes.truncate(at),
                _ => bytes.insert(at, rng.random()),
            }
            if bytes.is_empty() {
                break;
            }
        }
        session_bytes(&bytes);
    }
}
