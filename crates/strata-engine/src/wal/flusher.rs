//! The background thread that runs the WAL's `AsyncWal` flush every
//! `WalOptions::async_flush_interval`. It knows when to flush, not what: the WAL hands it
//! the tick to run, so this file needs nothing of the writer.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::util::thread;

/// Tells the flusher thread to stop, waking it at once instead of at its next tick.
#[derive(Debug, Default)]
pub(crate) struct StopSignal {
    stopped: Mutex<bool>,
    cond: Condvar,
}

impl StopSignal {
    /// Asks the thread to exit.
    pub(crate) fn stop(&self) {
        *self.stopped.lock() = true;
        self.cond.notify_all();
    }

    /// Waits for `interval` or until stopped; true if stopped. A condvar wait rather than
    /// a clock's sleep, because `stop` must cut the wait short.
    fn wait(&self, interval: Duration) -> bool {
        let mut stopped = self.stopped.lock();
        if !*stopped {
            self.cond.wait_for(&mut stopped, interval);
        }
        *stopped
    }
}

/// Starts the flusher: `tick` runs every `interval` until `signal` stops the thread or
/// `tick` returns false (the WAL it flushes is gone).
pub(crate) fn spawn(
    signal: Arc<StopSignal>,
    interval: Duration,
    mut tick: impl FnMut() -> bool + Send + 'static,
) -> Result<JoinHandle<()>> {
    thread::spawn("strata-wal-flush", move || {
        while !signal.wait(interval) && tick() {}
    })
    .map_err(|e| Error::io("strata-wal-flush thread", e))
}
