//! YCSB's record keys and fields: key number `n` becomes `user` followed by the decimal
//! FNV-1a hash of `n` (YCSB's default hashed insertion order), fields `field0`, `field1`, ...

const FNV_OFFSET_BASIS_64: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME_64: u64 = 1_099_511_628_211;

/// YCSB's `Utils.fnvhash64`: FNV-1a over the 8 little-endian bytes of `value`, then the
/// absolute value as a Java long.
pub fn fnv_hash64(value: u64) -> u64 {
    let hash = value
        .to_le_bytes()
        .iter()
        .fold(FNV_OFFSET_BASIS_64, |h, &octet| {
            (h ^ u64::from(octet)).wrapping_mul(FNV_PRIME_64)
        });
    // Java's Math.abs, including its wrap of i64::MIN; the cast keeps the bit pattern.
    (hash as i64).wrapping_abs() as u64
}

/// The key of record number `n`.
pub fn record_key(n: u64) -> Vec<u8> {
    format!("user{}", fnv_hash64(n) as i64).into_bytes()
}

/// The name of field `i`.
pub fn field_name(i: usize) -> Vec<u8> {
    format!("field{i}").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_user_plus_hashed_number() {
        let key = String::from_utf8(record_key(0)).unwrap();
        assert!(key.starts_with("user"));
        assert!(key[4..].parse::<i64>().unwrap() >= 0);
        assert_ne!(record_key(0), record_key(1));
        assert_eq!(record_key(42), record_key(42));
    }

    #[test]
    fn fnv_matches_a_hand_computed_value() {
        // FNV-1a of eight zero bytes: each step xors 0, then multiplies by the prime.
        let mut h = FNV_OFFSET_BASIS_64;
        for _ in 0..8 {
            h = h.wrapping_mul(FNV_PRIME_64);
        }
        assert_eq!(fnv_hash64(0), (h as i64).wrapping_abs() as u64);
        assert!(fnv_hash64(12345) <= i64::MAX as u64);
    }

    #[test]
    fn hashed_keys_are_distinct_for_many_records() {
        let keys: std::collections::HashSet<_> = (0..100_000).map(record_key).collect();
        assert_eq!(keys.len(), 100_000);
    }

    #[test]
    fn field_names_follow_ycsb() {
        assert_eq!(field_name(0), b"field0");
        assert_eq!(field_name(9), b"field9");
    }
}
