//! The process-wide block cache.
mod block_cache;
mod sizing;

pub use block_cache::{BlockCache, CacheStats, Priority, TierStats};
pub use sizing::CacheCharge;
// The sizing constants are internal; tests check the sizes they bound.
#[cfg(test)]
pub use sizing::{HIGH_PRIORITY_PERCENT, MIN_DATA_PERCENT, RESIZE_STEPS};

#[cfg(test)]
mod tests;
