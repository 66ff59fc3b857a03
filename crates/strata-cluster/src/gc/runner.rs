//! [`GcRunner`]: the master's collector thread. A pass every interval, on a thread of its
//! own so that listing and deleting (minutes on a large store) never hold up the
//! follower round that places regions. Started when the server becomes master; a server
//! that is not master (or past its lease) deletes nothing, which each pass checks again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::gc::{Collector, CoordInputs, GcConfig, GcInputs, GcStats};
use crate::node::ClusterNode;

/// How often the waiting thread looks at its stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

/// The running collector; stopped (after its current delete) when dropped.
pub struct GcRunner {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl GcRunner {
    /// Runs `collector` every `config.interval` over `inputs` until `stop` is set (or the
    /// runner dropped); `None` when the interval is zero (the collector is off). `inputs`
    /// should refuse deletes once `stop` is set, so a pass under way ends soon.
    pub fn start(
        mut collector: Collector,
        inputs: Arc<dyn GcInputs>,
        config: GcConfig,
        clock: Arc<dyn strata_runtime::clock::Clock>,
        stop: Arc<AtomicBool>,
    ) -> std::io::Result<Option<GcRunner>> {
        if config.interval.is_zero() {
            return Ok(None);
        }
        let stopping = Arc::clone(&stop);
        let thread = strata_runtime::thread::spawn("cluster-gc", move || loop {
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
            // A failed pass has no report, but what it deleted before failing is counted.
            let deleted_before = collector.stats().figures().strata_gc_deleted_objects_total;
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
                Err(e) => {
                    let deleted = collector.stats().figures().strata_gc_deleted_objects_total;
                    tracing::warn!(
                        error = %e,
                        objects = deleted.saturating_sub(deleted_before),
                        "garbage collection pass failed; nothing more deleted"
                    )
                }
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

/// Starts the collector of `node`, which has just become master: passes over its store,
/// reading etcd through its coordinator, deleting only while `leads` says it leads and its
/// lease is valid. Counts into `stats`.
pub fn start_on_master(
    node: &Arc<ClusterNode>,
    leads: Arc<dyn Fn() -> bool + Send + Sync>,
    stats: Arc<GcStats>,
) -> std::io::Result<Option<GcRunner>> {
    let config = node.config.gc;
    let stop = Arc::new(AtomicBool::new(false));
    let is_master = {
        let stop = Arc::clone(&stop);
        Arc::new(move || !stop.load(Ordering::Acquire) && leads())
    };
    let inputs = CoordInputs::new(
        Arc::clone(&node.coord),
        Arc::clone(&node.lease),
        Arc::clone(&node.clock),
        is_master,
    );
    let collector = Collector::new(node.store.clone(), Arc::clone(&node.clock), config, stats);
    if !config.interval.is_zero() {
        tracing::info!(
            interval_s = config.interval.as_secs_f64(),
            min_age_s = config.min_age.as_secs_f64(),
            "garbage collector started"
        );
    }
    GcRunner::start(
        collector,
        Arc::new(inputs),
        config,
        Arc::clone(&node.clock),
        stop,
    )
}
