//! Small reusable pieces with no knowledge of the engine's data model.

pub mod clock;
pub mod coding;
pub mod crc;
pub mod rate_limiter;
pub mod thread;
pub mod wait;
