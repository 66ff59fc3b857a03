//! The process-wide block cache: an in-memory level (`block_cache.rs`) and an optional
//! second level in a local file (`l2/`); and the row cache (`row_cache/`), which keeps
//! whole answers to point reads of the families that ask for it.
mod block_cache;
mod l2;
mod levels;
pub mod row_cache;
mod sizing;

pub use block_cache::{BlockCache, CacheStats, Priority, TierStats};
pub use l2::{L2Cache, L2Options, L2Stats};
pub use row_cache::{RowCache, RowCacheStats};
pub use sizing::CacheCharge;
// The sizing constants are internal; tests check the sizes they bound.
#[cfg(test)]
pub use sizing::{HIGH_PRIORITY_PERCENT, MIN_DATA_PERCENT, RESIZE_STEPS};

#[cfg(test)]
mod tests;
