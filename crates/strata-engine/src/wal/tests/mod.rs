//! WAL tests against the real filesystem (through the test-local [`support::TestFs`]).

mod backend;
mod corruption;
mod durability;
mod faults;
mod flushed;
mod golden;
mod group;
mod min_durability;
mod model;
mod queued_failure;
mod roundtrip;
pub(crate) mod support;
pub mod torn;
