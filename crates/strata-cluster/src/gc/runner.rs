//! [`GcRunner`]: the master's collector thread. A pass every interval, on a thread of its
//! own so that listing and deleting (minutes on a large store) never hold up the
//! follower round that places regions. Started when the server becomes master; a server
//! that is not master (or past its lease) deletes nothing, which each pass checks again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::gc::{Collector, GcConfig, GcInputs, GcStats};

/// How often the waiting thread looks at its stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

/// The running collector; stopped (after its current delete) when dropped.
pub struct GcRunner {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl GcRunner {
    /// Runs `collector` every `config.interval` over `inputs`; `None` when the interval is
    /// zero (the collector is off).
    pub fn start(
        mut collector: Collector,
        inputs: Arc<dyn GcInputs>,
        config: GcConfig,
        clock: Arc<dyn strata_engine::util::clock::Clock>,
    ) -> std::io::Result<Option<GcRunner>> {
        if config.interval.is_zero() {
            return Ok(None);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = strata_engine::util::thread::spawn("cluster-gc", move || loop {
            let started = clock.now();
            while clock.elapsed(started) < config.interval {
                if stopping.load(Ordering::Acquire) {
                    return;
                }
                clock.sleep(STOP_POLL.min(config.interval));
            }
            if stopping.load(Ordering::Acquire) {
                return;
            }
            match collector.pass(inputs.as_ref()) {
                Ok(report) if report.deleted_objects > 0 => tracing::info!(
                    objects = report.deleted_objects,
                    bytes = report.deleted_bytes,
                    garbage_left = report.garbage - report.deleted_objects,
                    held = report.held,
                    "garbage collected"
                ),
                Ok(report) => tracing::debug!(
                    garbage = report.garbage,
                    held = report.held,
                    "garbage collection pass: nothing old enough"
                ),
                Err(e) => tracing::warn!(error = %e, "garbage collection pass failed; nothing more deleted"),
            }
        })?;
        Ok(Some(GcRunner {
            stop,
            thread: Some(thread),
        }))
    }
}

impl Drop for GcRunner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// [`GcStats`] shared by the runner and the status page.
pub type SharedStats = Arc<GcStats>;
