//! The background thread that hands `AsyncWal` edits to the OS every
//! `WalOptions::async_flush_interval`.

use std::sync::Weak;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::writer::Wal;
use crate::error::{Error, Result};

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

    /// Sleeps for `interval` or until stopped; true if stopped.
    fn wait(&self, interval: Duration) -> bool {
        let mut stopped = self.stopped.lock();
        if !*stopped {
            self.cond.wait_for(&mut stopped, interval);
        }
        *stopped
    }
}

/// Starts the flusher. It holds the WAL only weakly, so dropping every other handle to the
/// WAL also ends the thread.
pub(crate) fn spawn(
    wal: Weak<Wal>,
    signal: std::sync::Arc<StopSignal>,
    interval: Duration,
) -> Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("strata-wal-flush".into())
        .spawn(move || run(&wal, &signal, interval))
        .map_err(|e| Error::io("strata-wal-flush thread", e))
}

fn run(wal: &Weak<Wal>, signal: &StopSignal, interval: Duration) {
    while !signal.wait(interval) {
        let Some(wal) = wal.upgrade() else {
            return;
        };
        if let Err(e) = wal.flush_pending() {
            // The edits were acknowledged as AsyncWal, which promises nothing on failure;
            // the next write reports the broken disk to its own caller.
            tracing::warn!(error = %e, "background WAL flush failed");
        }
    }
}
