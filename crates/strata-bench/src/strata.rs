//! Strata's engine as a benchmark target.
//!
//! Placeholder until the engine's `Engine`/`Region` API lands on main: opening fails with a
//! clear message so the rest of the harness (and RocksDB side) can run.

use crate::error::{BenchError, BenchResult};
use crate::target::{Backend, KvTarget, OpenSpec};

/// Opens Strata engines.
#[derive(Debug, Default)]
pub struct StrataBackend;

impl StrataBackend {
    /// A backend with default engine settings.
    pub fn new() -> Self {
        StrataBackend
    }
}

impl Backend for StrataBackend {
    fn name(&self) -> String {
        "strata".into()
    }

    fn open(&self, _spec: &OpenSpec) -> BenchResult<Box<dyn KvTarget>> {
        Err(BenchError::Config(
            "the Strata engine API (Engine::open) is not available in this build yet".into(),
        ))
    }
}
