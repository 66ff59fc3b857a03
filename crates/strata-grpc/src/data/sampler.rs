//! The randomness behind `row_sample_filter`: injected, so tests can seed it. A request may
//! carry the metadata header `strata-sample-seed: <u64>` to make its sampling repeatable.

use rand::{rngs::SmallRng, Rng, SeedableRng};

use crate::row_filter::Sampler;

/// A sampler drawing from any random number generator.
pub struct RngSampler<R>(pub R);

impl<R: Rng> Sampler for RngSampler<R> {
    fn sample(&mut self, p: f64) -> bool {
        self.0.random::<f64>() < p
    }
}

/// A sampler seeded from the thread's generator, itself seeded from the operating system
/// (production). Why not straight from the OS: that is a `getrandom` system call on every
/// ReadRows and CheckAndMutateRow, which profiling showed on the point-read path.
// Production's source of a request's sampling; tests seed theirs by header.
#[allow(clippy::disallowed_methods)]
pub fn from_os() -> RngSampler<SmallRng> {
    RngSampler(SmallRng::from_rng(&mut rand::rng()))
}

/// The metadata header that seeds a request's sampler.
pub const SEED_HEADER: &str = "strata-sample-seed";

/// The sampler for a request: seeded by its `strata-sample-seed` header, else from the OS.
pub fn for_request(metadata: &tonic::metadata::MetadataMap) -> RngSampler<SmallRng> {
    let seed = metadata
        .get(SEED_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    seed.map_or_else(from_os, seeded)
}

/// A repeatable sampler.
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

    #[test]
    fn the_seed_header_makes_a_request_repeatable() {
        let mut metadata = tonic::metadata::MetadataMap::new();
        metadata.insert(SEED_HEADER, "42".parse().unwrap());
        let mut a = for_request(&metadata);
        let mut b = seeded(42);
        let draws =
            |s: &mut RngSampler<SmallRng>| (0..64).map(|_| s.sample(0.5)).collect::<Vec<_>>();
        assert_eq!(draws(&mut a), draws(&mut b));
    }
}
