//! Named places where a test process can be made to die on purpose, to check that the
//! cluster finishes what a dead master left half done (`tests/cluster`). Off unless the
//! process starts with `STRATA_FAILPOINTS` naming them (comma-separated); read once.
//!
//! - `master-exit-after-release`: the master exits right after a move's owner released the
//!   region, before assigning it to the target (`strata-cluster`).
//! - `exit-before-regions-replaced`: a split or merge exits after its new regions were
//!   claimed and created, before the catalog names them (the commit point).
//! - `exit-after-regions-replaced`: a split or merge exits right after the catalog names the
//!   new regions, before this process serves them or retires the old ones.

use std::sync::OnceLock;

fn enabled() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        std::env::var("STRATA_FAILPOINTS")
            .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default()
    })
}

/// Exits the process (status 9, as a kill would leave it) if failpoint `name` is on.
pub fn exit_if_enabled(name: &str) {
    if enabled().iter().any(|n| n == name) {
        eprintln!("failpoint {name}: exiting");
        std::process::exit(9);
    }
}
