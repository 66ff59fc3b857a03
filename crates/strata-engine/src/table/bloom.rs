//! The per-file bloom filter.
//!
//! Block layout: `bits[m / 8] | k: u8`, where `m` (a multiple of 8) is the number of bits.
//! Probe `i` (0 <= i < k) of key `x` sets bit `(h1 + i * h2) mod m` (double hashing), where
//! `h = bloom_hash(x)`, `h1 = h & 0xFFFF_FFFF` and `h2 = h >> 32`. Bit `b` lives in byte
//! `b / 8` at position `b % 8` (least significant first).

/// Largest number of probes a filter may declare.
const MAX_PROBES: u8 = 30;

/// Smallest filter, so that tiny tables do not get a degenerate false-positive rate.
const MIN_BITS: u64 = 64;

/// Seed of [`bloom_hash`].
const HASH_SEED: u64 = 0x5354_5241_5441_0001;

/// The 64-bit hash used by bloom filters.
///
/// This function is part of the on-disk format: filters written today must answer correctly
/// when read by any later build. That is why it is written here and not taken from a crate
/// (std's `DefaultHasher` and most hashing crates explicitly allow their output to change
/// between versions). Do not change it without bumping the format version.
///
/// Definition: start with `seed ^ len`; for each 8-byte chunk of the input (the last one
/// padded with zero bytes), read it as a little-endian u64 `w` and set `h = mix(h ^ w)`;
/// return `mix(h)`. `mix` is the SplitMix64 finalizer. Folding the length in first keeps
/// inputs that differ only by trailing zero bytes apart.
pub fn bloom_hash(data: &[u8]) -> u64 {
    let mut h = HASH_SEED ^ data.len() as u64;
    for chunk in data.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = mix(h ^ u64::from_le_bytes(word));
    }
    mix(h)
}

/// The SplitMix64 finalizer: a bijection with full avalanche.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The bit positions probed for `hash` in a filter of `bits` bits.
fn probes(hash: u64, k: u8, bits: u64) -> impl Iterator<Item = u64> {
    let h1 = hash & 0xFFFF_FFFF;
    let h2 = hash >> 32;
    (0..u64::from(k)).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % bits)
}

/// Collects key hashes while a table is written, then lays out the filter.
#[derive(Debug)]
pub struct BloomBuilder {
    bits_per_key: u32,
    hashes: Vec<u64>,
}

impl BloomBuilder {
    /// A builder spending about `bits_per_key` bits per distinct key.
    pub fn new(bits_per_key: u32) -> Self {
        BloomBuilder {
            bits_per_key: bits_per_key.max(1),
            hashes: Vec::new(),
        }
    }

    /// Adds one key (the caller removes consecutive duplicates).
    pub fn add(&mut self, key: &[u8]) {
        self.hashes.push(bloom_hash(key));
    }

    /// True when no key was added.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The filter block's raw bytes.
    pub fn finish(&self) -> Vec<u8> {
        // k = bits_per_key * ln 2 minimises the false-positive rate.
        let k = (f64::from(self.bits_per_key) * std::f64::consts::LN_2).round() as u64;
        let k = k.clamp(1, u64::from(MAX_PROBES)) as u8;
        let wanted = (self.hashes.len() as u64).saturating_mul(u64::from(self.bits_per_key));
        let bits = wanted.max(MIN_BITS).div_ceil(8) * 8;
        let mut out = vec![0u8; (bits / 8) as usize];
        for &h in &self.hashes {
            for bit in probes(h, k, bits) {
                out[(bit / 8) as usize] |= 1 << (bit % 8);
            }
        }
        out.push(k);
        out
    }
}

/// A decoded filter, borrowing the block's bytes.
#[derive(Debug, Clone, Copy)]
pub struct BloomFilter<'a> {
    bits: &'a [u8],
    k: u8,
}

impl<'a> BloomFilter<'a> {
    /// Parses a filter block; `Err` carries a corruption reason.
    pub fn parse(block: &'a [u8]) -> Result<Self, &'static str> {
        let (&k, bits) = block.split_last().ok_or("empty bloom block")?;
        if k == 0 || k > MAX_PROBES {
            return Err("bloom probe count out of range");
        }
        if bits.is_empty() {
            return Err("bloom filter has no bits");
        }
        Ok(BloomFilter { bits, k })
    }

    /// False only if `key` was certainly never added.
    pub fn may_contain(&self, key: &[u8]) -> bool {
        let nbits = self.bits.len() as u64 * 8;
        probes(bloom_hash(key), self.k, nbits)
            .all(|bit| self.bits[(bit / 8) as usize] & (1 << (bit % 8)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(keys: impl Iterator<Item = Vec<u8>>) -> Vec<u8> {
        let mut b = BloomBuilder::new(10);
        for k in keys {
            b.add(&k);
        }
        b.finish()
    }

    #[test]
    fn hash_is_pinned() {
        // Part of format v1 (computed independently from the spec in docs/format.md, "Bloom block").
        assert_eq!(bloom_hash(b""), 0x4e58_f61f_49cc_623f);
        assert_eq!(bloom_hash(b"row1"), 0x174f_175f_6e08_bf9f);
        assert_eq!(bloom_hash(b"abcdefghi"), 0xc281_a9e6_3e92_51ba);
        assert_ne!(bloom_hash(b"a"), bloom_hash(b"a\0"));
    }

    #[test]
    fn no_false_negatives_and_low_false_positive_rate() {
        let n = 10_000u32;
        let block = build((0..n).map(|i| format!("row-{i}").into_bytes()));
        let filter = BloomFilter::parse(&block).unwrap();
        assert_eq!(block.last(), Some(&7), "k for 10 bits/key");
        for i in 0..n {
            assert!(filter.may_contain(format!("row-{i}").as_bytes()));
        }
        let trials = 100_000u32;
        let fp = (0..trials)
            .filter(|i| filter.may_contain(format!("absent-{i}").as_bytes()))
            .count();
        let rate = fp as f64 / f64::from(trials);
        assert!(rate < 0.02, "false-positive rate {rate}");
    }

    #[test]
    fn empty_filter_rejects_everything_it_can() {
        let block = build(std::iter::empty());
        assert_eq!(block.len(), 8 + 1);
        let filter = BloomFilter::parse(&block).unwrap();
        assert!(!filter.may_contain(b"anything"));
    }

    #[test]
    fn bad_blocks_are_rejected() {
        assert!(BloomFilter::parse(&[]).is_err());
        assert!(BloomFilter::parse(&[7]).is_err());
        assert!(BloomFilter::parse(&[0xFF, 0]).is_err());
        assert!(BloomFilter::parse(&[0xFF, 31]).is_err());
    }
}
