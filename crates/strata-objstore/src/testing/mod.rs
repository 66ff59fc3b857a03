//! Stores that misbehave on purpose, for deterministic tests of the WAL protocol (this
//! crate's and, later, the engine's and the master's). Not for production use.

mod clocked;
mod cut;
mod faulty;
mod non_atomic;

pub use clocked::ClockedStore;
pub use cut::CutStore;
pub use faulty::{Fault, FaultyStore, Op};
pub use non_atomic::CheckThenPutStore;

/// The error a store returns for a request that timed out: object_store reports transport
/// failures as `Generic`, which the crate treats as retryable.
pub fn injected_timeout(op: &str) -> object_store::Error {
    object_store::Error::Generic {
        store: "FaultyStore",
        source: format!("injected timeout during {op}").into(),
    }
}

/// Runs `work` on a new thread and waits for it. A fault's action runs inside the faulty
/// store's async `put`; an action that uses another [`crate::BlockingStore`] (a fencer)
/// must not block on that store's runtime from inside this one's, so it runs elsewhere.
pub fn run_on_other_thread<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let handle = strata_runtime::thread::spawn("strata-objstore-test", work)
        .unwrap_or_else(|e| panic!("cannot start a test thread: {e}"));
    match handle.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
