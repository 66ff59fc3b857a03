//! The memstore's key: an internal key with its first bytes kept inline in the skiplist node.

use std::cmp::Ordering;

/// How many leading bytes of a key are kept inline.
const HEAD_LEN: usize = 16;

/// An internal key as the memstore's skiplist stores it.
///
/// Why the inline head: a skiplist search compares the target with some thirty keys on its way
/// down, and a plain `Vec<u8>` key costs a second cache miss per comparison (node, then the
/// bytes on the heap). Most comparisons are decided within the first 16 bytes (a row key's
/// start), which now sit in the node itself.
///
/// Order: by `head` (the first 16 bytes, zero-padded), then by the whole key. That is exactly
/// the bytewise order of the keys: if two heads differ at some byte, at least one key really
/// has that byte, so the keys differ there in the same way (or the shorter key ended, and
/// sorts first, where its pad byte 0 is below the other key's byte); equal heads defer to the
/// full comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemKey {
    head: u128,
    full: Vec<u8>,
}

impl MemKey {
    /// Wraps an internal key.
    pub fn new(full: Vec<u8>) -> Self {
        MemKey {
            head: head_of(&full),
            full,
        }
    }

    /// A key to search for.
    pub fn probe(key: &[u8]) -> Self {
        MemKey::new(key.to_vec())
    }

    /// The whole internal key.
    pub fn bytes(&self) -> &[u8] {
        &self.full
    }
}

/// The first `HEAD_LEN` bytes of `key`, zero-padded, as a big-endian number (so that numeric
/// order is bytewise order).
fn head_of(key: &[u8]) -> u128 {
    let mut head = [0u8; HEAD_LEN];
    let n = key.len().min(HEAD_LEN);
    head[..n].copy_from_slice(&key[..n]);
    u128::from_be_bytes(head)
}

impl Ord for MemKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.head
            .cmp(&other.head)
            .then_with(|| self.full.cmp(&other.full))
    }
}

impl PartialOrd for MemKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Keys that share long prefixes, end inside the head or right after it, and hold zero
    /// bytes (the pad value), where an inline head could get the order wrong.
    fn tricky_key(rng: &mut SmallRng) -> Vec<u8> {
        let len = rng.random_range(0..=HEAD_LEN + 4);
        (0..len)
            .map(|_| [0u8, 1, 0xff][rng.random_range(0..3)])
            .collect()
    }

    #[test]
    fn order_is_the_bytewise_order_of_the_keys() {
        let mut rng = SmallRng::seed_from_u64(7);
        for _ in 0..20_000 {
            let (a, b) = (tricky_key(&mut rng), tricky_key(&mut rng));
            let (ka, kb) = (MemKey::new(a.clone()), MemKey::new(b.clone()));
            assert_eq!(ka.cmp(&kb), a.cmp(&b), "{a:?} vs {b:?}");
            assert_eq!(ka == kb, a == b, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn a_key_that_ends_in_zero_bytes_sorts_after_its_prefix() {
        let short = MemKey::new(b"ab".to_vec());
        let padded = MemKey::new(b"ab\0\0".to_vec());
        assert_eq!(short.cmp(&padded), Ordering::Less);
        assert_eq!(short.bytes(), b"ab");
    }
}
