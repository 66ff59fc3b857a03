//! The process-wide block cache.
mod block_cache;

pub use block_cache::{BlockCache, CacheKey, CacheStats, Priority, TierStats};
