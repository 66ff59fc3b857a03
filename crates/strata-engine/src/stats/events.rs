//! Background work history: every flush and compaction is recorded here (and logged with its
//! duration and sizes), so operators can see what ran, for how long, and with how many bytes.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use serde::Serialize;

/// How many recent events are kept.
pub const HISTORY_LEN: usize = 200;

/// What ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    Flush,
    MinorCompaction,
    MajorCompaction,
}

/// One finished flush or compaction of one store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BackgroundEvent {
    pub kind: EventKind,
    pub region: u64,
    pub family: String,
    /// Wall-clock end time, milliseconds since the epoch (the engine's clock).
    pub finished_at_ms: i64,
    pub duration_micros: u64,
    /// Memstore bytes flushed, or input file bytes compacted.
    pub bytes_in: u64,
    /// Bytes of the file written.
    pub bytes_out: u64,
    /// Input files (compactions; 0 for flushes).
    pub files_in: u64,
}

/// Totals since the engine opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct BackgroundTotals {
    pub flushes: u64,
    pub flush_micros: u64,
    pub flush_bytes: u64,
    pub compactions: u64,
    pub compaction_micros: u64,
    pub compaction_bytes_in: u64,
    pub compaction_bytes_out: u64,
}

/// The recorder shared by an engine's regions.
#[derive(Debug, Default)]
pub struct EventLog {
    recent: Mutex<VecDeque<BackgroundEvent>>,
    flushes: AtomicU64,
    flush_micros: AtomicU64,
    flush_bytes: AtomicU64,
    compactions: AtomicU64,
    compaction_micros: AtomicU64,
    compaction_bytes_in: AtomicU64,
    compaction_bytes_out: AtomicU64,
}

impl EventLog {
    /// Records (and logs) one finished flush or compaction.
    pub fn record(&self, event: BackgroundEvent) {
        let add = |c: &AtomicU64, v: u64| c.fetch_add(v, Ordering::Relaxed);
        match event.kind {
            EventKind::Flush => {
                add(&self.flushes, 1);
                add(&self.flush_micros, event.duration_micros);
                add(&self.flush_bytes, event.bytes_out);
            }
            EventKind::MinorCompaction | EventKind::MajorCompaction => {
                add(&self.compactions, 1);
                add(&self.compaction_micros, event.duration_micros);
                add(&self.compaction_bytes_in, event.bytes_in);
                add(&self.compaction_bytes_out, event.bytes_out);
            }
        }
        tracing::info!(
            kind = ?event.kind,
            region = event.region,
            family = %event.family,
            duration_ms = event.duration_micros as f64 / 1000.0,
            bytes_in = event.bytes_in,
            bytes_out = event.bytes_out,
            files_in = event.files_in,
            "background work finished"
        );
        let mut recent = self.recent.lock();
        if recent.len() == HISTORY_LEN {
            recent.pop_front();
        }
        recent.push_back(event);
    }

    /// The recent events, oldest first.
    pub fn recent(&self) -> Vec<BackgroundEvent> {
        self.recent.lock().iter().cloned().collect()
    }

    /// Totals since the engine opened.
    pub fn totals(&self) -> BackgroundTotals {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        BackgroundTotals {
            flushes: get(&self.flushes),
            flush_micros: get(&self.flush_micros),
            flush_bytes: get(&self.flush_bytes),
            compactions: get(&self.compactions),
            compaction_micros: get(&self.compaction_micros),
            compaction_bytes_in: get(&self.compaction_bytes_in),
            compaction_bytes_out: get(&self.compaction_bytes_out),
        }
    }
}

/// Per-region request counters (HBase's readRequestsCount / writeRequestsCount).
#[derive(Debug, Default)]
pub struct RegionRequests {
    reads: AtomicU64,
    writes: AtomicU64,
}

impl RegionRequests {
    /// One get, or one scan started on the region.
    pub fn read(&self) {
        self.reads.fetch_add(1, Ordering::Relaxed);
    }

    /// One mutation batch applied to the region.
    pub fn write(&self) {
        self.writes.fetch_add(1, Ordering::Relaxed);
    }

    /// (reads, writes).
    pub fn counts(&self) -> (u64, u64) {
        (
            self.reads.load(Ordering::Relaxed),
            self.writes.load(Ordering::Relaxed),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: EventKind, bytes: u64) -> BackgroundEvent {
        BackgroundEvent {
            kind,
            region: 1,
            family: "cf".into(),
            finished_at_ms: 0,
            duration_micros: 10,
            bytes_in: bytes,
            bytes_out: bytes / 2,
            files_in: 2,
        }
    }

    #[test]
    fn totals_add_up_and_history_is_bounded() {
        let log = EventLog::default();
        for i in 0..(HISTORY_LEN as u64 + 5) {
            log.record(event(EventKind::MinorCompaction, i));
        }
        log.record(event(EventKind::Flush, 100));
        let t = log.totals();
        assert_eq!(t.compactions, HISTORY_LEN as u64 + 5);
        assert_eq!(t.flushes, 1);
        assert_eq!(t.flush_bytes, 50);
        let recent = log.recent();
        assert_eq!(recent.len(), HISTORY_LEN);
        assert_eq!(recent.last().map(|e| e.kind), Some(EventKind::Flush));
        assert_eq!(recent[0].bytes_in, 6, "the oldest events were dropped");
    }
}
