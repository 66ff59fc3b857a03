//! The process-wide block cache.
mod block_cache;
mod sizing;

pub use block_cache::{BlockCache, CacheKey, CacheStats, Priority, TierStats};
pub use sizing::{CacheCharge, HIGH_PRIORITY_PERCENT, MIN_DATA_PERCENT, RESIZE_STEPS};

#[cfg(test)]
mod tests;
