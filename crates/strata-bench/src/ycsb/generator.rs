//! YCSB's request distributions: zipfian (Gray et al.'s algorithm with YCSB's constants),
//! scrambled zipfian (spreads the popular items over the key space), latest (favours the
//! most recent inserts) and uniform.

use rand::rngs::SmallRng;
use rand::Rng;

use super::keys::fnv_hash64;

/// YCSB's zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// The item count YCSB's scrambled zipfian draws from before hashing into the key space.
const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;
/// zeta(SCRAMBLED_ITEM_COUNT, 0.99), precomputed by YCSB (computing it takes minutes).
const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// Sum of 1/(i+1)^theta for i in `from..to`, added to `sum`.
fn zeta(from: u64, to: u64, theta: f64, sum: f64) -> f64 {
    (from..to).fold(sum, |acc, i| acc + 1.0 / ((i + 1) as f64).powf(theta))
}

/// Zipfian over `base..base+items`: item `base` is the most popular.
#[derive(Debug, Clone)]
pub struct Zipfian {
    base: u64,
    items: u64,
    theta: f64,
    alpha: f64,
    zeta2theta: f64,
    zetan: f64,
    eta: f64,
}

impl Zipfian {
    /// Over `min..=max`, computing zeta (linear in the item count).
    pub fn new(min: u64, max: u64) -> Self {
        let items = max.saturating_sub(min) + 1;
        let zetan = zeta(0, items, ZIPFIAN_CONSTANT, 0.0);
        Zipfian::with_zetan(min, items, zetan)
    }

    fn with_zetan(base: u64, items: u64, zetan: f64) -> Self {
        let theta = ZIPFIAN_CONSTANT;
        let zeta2theta = zeta(0, 2, theta, 0.0);
        let mut z = Zipfian {
            base,
            items,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zeta2theta,
            zetan,
            eta: 0.0,
        };
        z.eta = z.eta_for(items);
        z
    }

    fn eta_for(&self, items: u64) -> f64 {
        (1.0 - (2.0 / items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2theta / self.zetan)
    }

    /// Grows the item count (zeta is extended incrementally, as YCSB does).
    fn grow_to(&mut self, items: u64) {
        if items > self.items {
            self.zetan = zeta(self.items, items, self.theta, self.zetan);
            self.items = items;
            self.eta = self.eta_for(items);
        }
    }

    /// The next value.
    pub fn next(&mut self, rng: &mut SmallRng) -> u64 {
        let u: f64 = rng.random();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        let spread = self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha);
        // `spread` < items since u < 1; the min guards against rounding.
        self.base + (spread as u64).min(self.items - 1)
    }
}

/// YCSB's scrambled zipfian over `min..=max`: zipfian popularity, but the popular items are
/// scattered by hashing instead of being the smallest numbers.
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    min: u64,
    items: u64,
    inner: Zipfian,
}

impl ScrambledZipfian {
    pub fn new(min: u64, max: u64) -> Self {
        ScrambledZipfian {
            min,
            items: max.saturating_sub(min) + 1,
            inner: Zipfian::with_zetan(0, SCRAMBLED_ITEM_COUNT, SCRAMBLED_ZETAN),
        }
    }

    pub fn next(&mut self, rng: &mut SmallRng) -> u64 {
        self.min + fnv_hash64(self.inner.next(rng)) % self.items
    }
}

/// YCSB's "latest": zipfian counted back from the newest item, so recent inserts are hot.
#[derive(Debug, Clone)]
pub struct SkewedLatest {
    zipfian: Zipfian,
}

impl SkewedLatest {
    /// For a key space whose newest item is currently `latest`.
    pub fn new(latest: u64) -> Self {
        SkewedLatest {
            zipfian: Zipfian::new(0, latest.max(1) - 1),
        }
    }

    /// The next value, given the newest item now.
    pub fn next(&mut self, latest: u64, rng: &mut SmallRng) -> u64 {
        let latest = latest.max(1);
        self.zipfian.grow_to(latest);
        latest - self.zipfian.next(rng).min(latest)
    }
}

/// Uniform over `min..=max`.
pub fn uniform(rng: &mut SmallRng, min: u64, max: u64) -> u64 {
    rng.random_range(min..=max.max(min))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng() -> SmallRng {
        SmallRng::seed_from_u64(7)
    }

    #[test]
    fn zipfian_favours_the_first_items() {
        let (mut z, mut r) = (Zipfian::new(0, 999), rng());
        let mut counts = vec![0u32; 1000];
        for _ in 0..100_000 {
            let v = z.next(&mut r);
            assert!(v < 1000);
            counts[v as usize] += 1;
        }
        // With theta 0.99 over 1000 items, item 0 draws about 1/zeta(1000) = 13 %.
        assert!(counts[0] > 10_000 && counts[0] < 16_000, "{}", counts[0]);
        assert!(counts[0] > counts[1] && counts[1] > counts[10] && counts[10] > counts[500]);
    }

    #[test]
    fn scrambled_zipfian_stays_in_range_and_is_skewed() {
        let (mut z, mut r) = (ScrambledZipfian::new(100, 1099), rng());
        let mut counts = std::collections::HashMap::new();
        for _ in 0..100_000 {
            let v = z.next(&mut r);
            assert!((100..=1099).contains(&v), "{v}");
            *counts.entry(v).or_insert(0u32) += 1;
        }
        let top = counts.values().copied().max().unwrap();
        // The hottest key is far above the uniform share of 100 draws.
        assert!(top > 2_000, "{top}");
        // Scrambling spreads the hot keys: the hottest is not simply the first one.
        let hottest = counts.iter().max_by_key(|(_, &c)| c).unwrap().0;
        assert_ne!(*hottest, 100);
    }

    #[test]
    fn latest_favours_recent_items_and_follows_growth() {
        let (mut l, mut r) = (SkewedLatest::new(999), rng());
        let mut recent = 0;
        for _ in 0..10_000 {
            let v = l.next(999, &mut r);
            assert!(v <= 999);
            recent += u32::from(v >= 990);
        }
        assert!(recent > 3_000, "{recent}");
        let newest = (0..10_000)
            .filter(|_| l.next(5_000, &mut r) == 5_000)
            .count();
        assert!(newest > 1_000, "{newest}");
    }

    #[test]
    fn uniform_covers_its_range() {
        let mut r = rng();
        let mut seen = [false; 10];
        for _ in 0..1_000 {
            let v = uniform(&mut r, 1, 10);
            assert!((1..=10).contains(&v));
            seen[v as usize - 1] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
