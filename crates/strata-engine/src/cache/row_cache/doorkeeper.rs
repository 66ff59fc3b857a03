//! The row cache's admission filter: a row is cached only on its second miss within a
//! window, so rows read once (the long tail of a Zipfian workload) never cost a copy into
//! the cache and never push a hot row out. TinyLFU calls this the doorkeeper.
//!
//! A bitset of one bit per hashed key, set on a key's first miss. Once as many keys were
//! let through as a quarter of its bits, it is cleared and a new window starts, so a row
//! read twice far apart is still admitted in its window and stale bits do not pile up.
//! Collisions only admit a row early, which costs a copy, never correctness.

use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bits per row the cache can hold: with 8, about one key in 16 collides within a window.
const BITS_PER_ROW: u64 = 8;
/// The smallest filter (bits).
const MIN_BITS: u64 = 1 << 16;

#[derive(Debug)]
pub struct Doorkeeper {
    words: Vec<AtomicU64>,
    mask: u64,
    /// First misses recorded in this window.
    recorded: AtomicU64,
    hasher: quick_cache::DefaultHashBuilder,
}

impl Doorkeeper {
    /// A filter sized for a cache of about `rows` rows.
    pub fn new(rows: u64) -> Doorkeeper {
        let bits = rows
            .saturating_mul(BITS_PER_ROW)
            .max(MIN_BITS)
            .checked_next_power_of_two()
            .unwrap_or(1 << 63);
        let words = (0..bits / 64).map(|_| AtomicU64::new(0)).collect();
        Doorkeeper {
            words,
            mask: bits - 1,
            recorded: AtomicU64::new(0),
            hasher: quick_cache::DefaultHashBuilder::default(),
        }
    }

    /// True if `key` missed before in this window (admit it); else notes it and says no.
    pub fn admits(&self, key: &impl Hash) -> bool {
        let bit = self.hasher.hash_one(key) & self.mask;
        let word = &self.words[(bit / 64) as usize];
        let flag = 1u64 << (bit % 64);
        if word.fetch_or(flag, Ordering::Relaxed) & flag != 0 {
            return true;
        }
        if self.recorded.fetch_add(1, Ordering::Relaxed) + 1 >= (self.mask + 1) / 4 {
            self.clear();
        }
        false
    }

    /// Starts a new window. Racing `admits` may see a half-cleared filter: it only changes
    /// which rows are admitted a miss earlier or later.
    fn clear(&self) {
        self.recorded.store(0, Ordering::Relaxed);
        for word in &self.words {
            word.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_admitted_on_its_second_miss() {
        let d = Doorkeeper::new(1000);
        assert!(!d.admits(&"row1"));
        assert!(d.admits(&"row1"));
        assert!(d.admits(&"row1"));
        assert!(!d.admits(&"row2"));
    }

    #[test]
    fn a_full_window_starts_over() {
        let d = Doorkeeper::new(0); // MIN_BITS bits: a window of MIN_BITS / 4 first misses
        assert!(!d.admits(&0u64));
        let (mut key, mut admitted_early) = (1u64, 0);
        while d.recorded.load(Ordering::Relaxed) != 0 {
            admitted_early += usize::from(d.admits(&key));
            key += 1;
            assert!(key < MIN_BITS, "the window never filled");
        }
        // A quarter full, about one new key in eight collided with an earlier one.
        assert!(
            admitted_early < (MIN_BITS / 16) as usize,
            "collisions: {admitted_early}"
        );
        assert!(!d.admits(&0u64), "key 0 is new in the next window");
    }
}
