//! The engine's side of the mover: one pass over every open region's stores, moving the
//! files that belong on another storage type (`store/mover.rs`), paced by the mover's own
//! rate limit so it never competes with flushes and compactions for more than that.

use super::Engine;
use crate::error::Result;

/// What one pass moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MoveReport {
    pub files: usize,
    pub bytes: u64,
    /// Files that could not be moved this pass (the error is logged; the next pass retries).
    pub failed: usize,
}

impl Engine {
    /// Moves every misplaced file of every open region (a changed storage policy, the age
    /// rule of `EngineOptions::move_rules`), at most `EngineOptions::mover_bytes_per_sec`.
    /// Blocking; run it from a background thread.
    pub fn move_misplaced_files(&self) -> Result<MoveReport> {
        let mut report = MoveReport::default();
        let now_ms = self.options.clock.now_millis();
        for region in self.host.regions.all() {
            for store in region.stores().values() {
                for (file, target) in store.misplaced_files(&self.options.move_rules, now_ms) {
                    match store.move_file(file, target, &self.mover_limiter) {
                        Ok(0) => {}
                        Ok(bytes) => {
                            report.files += 1;
                            report.bytes += bytes;
                        }
                        Err(e) => {
                            report.failed += 1;
                            tracing::warn!(region = region.id(), file, error = %e, "could not move a store file");
                        }
                    }
                }
            }
        }
        Ok(report)
    }
}
