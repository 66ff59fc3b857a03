//! Small reusable pieces with no knowledge of the engine's data model. The runtime seams
//! (clock, threads, waits) live in `strata-runtime`; they are named here too for the
//! engine's own modules.

pub(crate) use strata_runtime::{clock, thread};
pub(crate) mod coding;
pub mod crc;
pub(crate) mod rate_limiter;
#[cfg(test)]
pub(crate) mod test_hook;
pub(crate) use strata_runtime::wait;
