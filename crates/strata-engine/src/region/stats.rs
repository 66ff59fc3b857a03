//! The region's figures for operators: its stores and files as they are now, and the
//! events its flushes and compactions record.

use std::time::Duration;

use super::Region;
use crate::manifest::FileOrigin;
use crate::stats::{BackgroundEvent, EventKind, FileStats, RegionStats, StoreStats};
use crate::store::{CompactionOutcome, Store};

impl Region {
    /// A snapshot of this region.
    pub fn stats(&self) -> RegionStats {
        let stores: Vec<StoreStats> = self.stores.values().map(|s| store_stats(s)).collect();
        let (read_requests, write_requests) = self.requests.counts();
        RegionStats {
            id: self.id,
            memstore_bytes: stores.iter().map(|s| s.memstore_bytes).sum(),
            file_bytes: stores.iter().map(|s| s.file_bytes).sum(),
            file_count: stores.iter().map(|s| s.files.len() as u64).sum(),
            read_requests,
            write_requests,
            stores,
        }
    }
}

fn store_stats(store: &Store) -> StoreStats {
    let view = store.view();
    let files: Vec<FileStats> = view
        .files
        .iter()
        .map(|f| {
            let e = &f.entry;
            FileStats {
                file_number: e.file_number,
                volume: e.volume.clone(),
                path: e.relative_path.clone(),
                size: e.size,
                entries: e.entries,
                min_timestamp: e.min_ts,
                max_timestamp: e.max_ts,
                origin: match e.origin {
                    FileOrigin::Flush => "flush",
                    FileOrigin::Compaction => "compaction",
                },
                created_at_ms: e.created_at_ms,
                reference: f.is_reference(),
            }
        })
        .collect();
    StoreStats {
        family: String::from_utf8_lossy(store.family_name()).into_owned(),
        memstore_bytes: view.memstore_bytes(),
        file_bytes: files.iter().map(|f| f.size).sum(),
        files,
    }
}

/// The event of a flush of one store that freed `freed` memstore bytes; `None` when
/// nothing was flushed.
pub(super) fn flush_event(
    region: u64,
    store: &Store,
    freed: u64,
    elapsed: Duration,
    now_ms: i64,
) -> Option<BackgroundEvent> {
    if freed == 0 {
        return None;
    }
    // The newest file is the one just written (a racing compaction could replace it; the
    // figure is for display only).
    let bytes_out = store.view().files.first().map_or(0, |f| f.entry.size);
    Some(BackgroundEvent {
        kind: EventKind::Flush,
        region,
        family: String::from_utf8_lossy(store.family_name()).into_owned(),
        finished_at_ms: now_ms,
        duration_micros: micros(elapsed),
        bytes_in: freed,
        bytes_out,
        files_in: 0,
    })
}

/// The event of a compaction of one store.
pub(super) fn compaction_event(
    region: u64,
    family: &[u8],
    outcome: &CompactionOutcome,
    elapsed: Duration,
    now_ms: i64,
) -> BackgroundEvent {
    BackgroundEvent {
        kind: if outcome.major {
            EventKind::MajorCompaction
        } else {
            EventKind::MinorCompaction
        },
        region,
        family: String::from_utf8_lossy(family).into_owned(),
        finished_at_ms: now_ms,
        duration_micros: micros(elapsed),
        bytes_in: outcome.input_bytes,
        bytes_out: outcome.output_bytes,
        files_in: outcome.input_files as u64,
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
