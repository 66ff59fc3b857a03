//! Keys and values, generated identically for every target.

use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

/// Every key is exactly this long.
pub const KEY_LEN: usize = 16;

/// A key: the number zero-padded to 16 decimal digits, as db_bench formats it, so that
/// byte order equals numeric order and both systems see the same bytes.
pub type Key = [u8; KEY_LEN];

/// Formats key number `n`. Numbers past 16 digits keep their low 16 digits, which cannot
/// happen for any `--num` the harness accepts.
pub fn format_key(n: u64) -> Key {
    let mut key = [b'0'; KEY_LEN];
    let mut rest = n;
    for slot in key.iter_mut().rev() {
        // The remainder is below 10, so the narrowing is exact.
        *slot = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    key
}

/// Largest key number that fits in 16 decimal digits.
pub const MAX_KEYS: u64 = 10_000_000_000_000_000;

/// Random key numbers in `[0, num)`.
pub struct KeyChooser {
    rng: SmallRng,
    num: u64,
}

impl KeyChooser {
    /// A chooser whose sequence depends only on `seed`.
    pub fn new(seed: u64, num: u64) -> Self {
        KeyChooser {
            rng: SmallRng::seed_from_u64(seed),
            num: num.max(1),
        }
    }

    /// The next uniformly chosen key number (with replacement, like db_bench).
    pub fn next_number(&mut self) -> u64 {
        self.rng.random_range(0..self.num)
    }
}

/// Size of the pool values are cut from; large enough that consecutive values differ.
const POOL_LEN: usize = 1 << 20;

/// Value bytes cut from a fixed pool of random bytes at a moving offset, so that making a
/// value costs no more than a slice. The bytes are uniformly random, hence incompressible;
/// both systems run with compression off, so this only keeps the on-disk sizes honest.
pub struct ValueSource {
    pool: Vec<u8>,
    value_size: usize,
    offset: usize,
}

impl ValueSource {
    /// A source of `value_size`-byte values whose pool depends only on `seed`.
    pub fn new(seed: u64, value_size: usize) -> Self {
        let mut pool = vec![0u8; POOL_LEN.max(value_size.saturating_mul(2))];
        SmallRng::seed_from_u64(seed).fill_bytes(&mut pool);
        ValueSource {
            pool,
            value_size,
            offset: 0,
        }
    }

    /// The next value.
    pub fn next_value(&mut self) -> &[u8] {
        if self.offset + self.value_size > self.pool.len() {
            self.offset = 0;
        }
        let start = self.offset;
        // An odd stride keeps successive values from lining up with each other.
        self.offset += self.value_size / 2 + 7;
        &self.pool[start..start + self.value_size]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sixteen_zero_padded_digits() {
        assert_eq!(&format_key(0), b"0000000000000000");
        assert_eq!(&format_key(42), b"0000000000000042");
        assert_eq!(&format_key(MAX_KEYS - 1), b"9999999999999999");
        for n in [1u64, 9, 10, 999_999, 1_000_000] {
            let key = format_key(n);
            assert_eq!(key.len(), KEY_LEN);
            assert_eq!(
                std::str::from_utf8(&key).unwrap().parse::<u64>().unwrap(),
                n
            );
        }
    }

    #[test]
    fn key_order_is_numeric_order() {
        assert!(format_key(9) < format_key(10));
        assert!(format_key(99_999) < format_key(100_000));
    }

    #[test]
    fn chooser_is_deterministic_and_in_range() {
        let a: Vec<u64> = {
            let mut c = KeyChooser::new(7, 100);
            (0..50).map(|_| c.next_number()).collect()
        };
        let mut c = KeyChooser::new(7, 100);
        let b: Vec<u64> = (0..50).map(|_| c.next_number()).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|&n| n < 100));
    }

    #[test]
    fn values_have_the_requested_size() {
        for size in [1usize, 100, 1000, 3 << 20] {
            let mut src = ValueSource::new(1, size);
            for _ in 0..5000 {
                assert_eq!(src.next_value().len(), size);
            }
        }
    }
}
