//! The randomness behind `row_sample_filter`: injected, so tests can seed it.

use rand::{rngs::SmallRng, Rng, SeedableRng};

use crate::row_filter::Sampler;

/// A sampler drawing from any random number generator.
pub struct RngSampler<R>(pub R);

impl<R: Rng> Sampler for RngSampler<R> {
    fn sample(&mut self, p: f64) -> bool {
        self.0.random::<f64>() < p
    }
}

/// A sampler seeded from the operating system (production).
pub fn from_os() -> RngSampler<SmallRng> {
    RngSampler(SmallRng::from_os_rng())
}

/// A repeatable sampler (tests).
#[cfg(test)]
pub fn seeded(seed: u64) -> RngSampler<SmallRng> {
    RngSampler(SmallRng::seed_from_u64(seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_samplers_repeat_and_follow_the_probability() {
        let draw = |seed| {
            let mut s = seeded(seed);
            (0..1000).map(|_| s.sample(0.25)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        let hits = draw(7).iter().filter(|h| **h).count();
        assert!((150..350).contains(&hits), "{hits} of 1000 at p=0.25");
        let mut s = seeded(1);
        assert!(!(0..100).any(|_| s.sample(0.0)));
        assert!((0..100).all(|_| s.sample(1.0)));
    }
}
