//! An in-memory search aid for a cached block: the 8 bytes that follow the block's common
//! key prefix, for every restart key, in one contiguous array. A binary search over it reads
//! a few adjacent cache lines instead of missing the cache on every probe of the block's
//! entries; only restart keys whose 8 bytes tie with the target are compared in full.
//! Built once when a block enters the cache; never stored on disk.

/// The restart-key prefixes of one block.
#[derive(Debug, Default)]
pub struct PrefixIndex {
    /// Bytes every restart key of the block starts with.
    common: Vec<u8>,
    /// Big-endian 8 bytes after `common` of each restart key, zero padded.
    probes: Vec<u64>,
}

/// The 8 bytes of `key` after `skip`, zero padded, as a big-endian number (so numeric order
/// is byte order).
fn probe_of(key: &[u8], skip: usize) -> u64 {
    let mut buf = [0u8; 8];
    let tail = key.get(skip..).unwrap_or_default();
    let n = tail.len().min(8);
    buf[..n].copy_from_slice(&tail[..n]);
    u64::from_be_bytes(buf)
}

impl PrefixIndex {
    /// Builds the index from the restart keys of a block, in order.
    pub fn build<'a>(keys: impl Iterator<Item = &'a [u8]> + Clone) -> PrefixIndex {
        let (Some(first), Some(last)) = (keys.clone().next(), keys.clone().last()) else {
            return PrefixIndex::default();
        };
        let common_len = first.iter().zip(last).take_while(|(a, b)| a == b).count();
        PrefixIndex {
            common: first[..common_len].to_vec(),
            probes: keys.map(|k| probe_of(k, common_len)).collect(),
        }
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        self.common.capacity() + self.probes.capacity() * 8
    }

    /// The range `[lo, hi)` of restart indexes whose keys may compare equal to `target` on
    /// the indexed bytes: every restart before `lo` is < `target`, every one from `hi` on is
    /// > `target`. The caller compares full keys inside the range.
    pub fn candidates(&self, target: &[u8]) -> (usize, usize) {
        let n = self.probes.len();
        let head = &target[..target.len().min(self.common.len())];
        match head.cmp(&self.common[..head.len()]) {
            std::cmp::Ordering::Less => return (0, 0),
            std::cmp::Ordering::Greater => return (n, n),
            std::cmp::Ordering::Equal if head.len() < self.common.len() => return (0, 0),
            std::cmp::Ordering::Equal => {}
        }
        let t = probe_of(target, self.common.len());
        let lo = self.probes.partition_point(|&p| p < t);
        let hi = lo + self.probes[lo..].partition_point(|&p| p == t);
        (lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Number of keys < target, computed from the index plus full comparisons in the tie range.
    fn below(index: &PrefixIndex, keys: &[Vec<u8>], target: &[u8]) -> usize {
        let (lo, hi) = index.candidates(target);
        lo + keys[lo..hi].partition_point(|k| k.as_slice() < target)
    }

    #[test]
    fn agrees_with_a_plain_binary_search() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for round in 0..300 {
            let prefix: Vec<u8> = (0..rng.random_range(0..12))
                .map(|_| rng.random_range(0..3))
                .collect();
            let mut keys: Vec<Vec<u8>> = (0..rng.random_range(1..40))
                .map(|_| {
                    let mut k = prefix.clone();
                    k.extend((0..rng.random_range(0..12)).map(|_| rng.random_range(0..3u8)));
                    k
                })
                .collect();
            keys.sort();
            keys.dedup();
            let index = PrefixIndex::build(keys.iter().map(Vec::as_slice));
            for _ in 0..50 {
                let mut target = if rng.random_bool(0.7) {
                    prefix.clone()
                } else {
                    Vec::new()
                };
                target.extend((0..rng.random_range(0..14)).map(|_| rng.random_range(0..3u8)));
                let want = keys.partition_point(|k| k.as_slice() < target.as_slice());
                assert_eq!(
                    below(&index, &keys, &target),
                    want,
                    "round {round} target {target:?} keys {keys:?}"
                );
            }
        }
    }
}
