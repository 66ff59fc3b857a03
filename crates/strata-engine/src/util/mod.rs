//! Small reusable pieces with no knowledge of the engine's data model.

pub mod clock;
pub(crate) mod coding;
pub mod crc;
pub(crate) mod rate_limiter;
#[cfg(feature = "tokio")]
pub mod runtime_wait;
#[cfg(test)]
pub(crate) mod test_hook;
pub mod thread;
pub(crate) mod wait;
