//! The write path of a region.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::Region;
use crate::cell::{Cell, LATEST_TIMESTAMP};
use crate::error::{Error, Result};
use crate::options::Durability;
use crate::wal::WalEdit;

impl Region {
    /// Applies `cells` atomically (all visible at once, all or nothing after a crash) with the
    /// given durability, and returns the write's sequence id. Cells carrying
    /// `LATEST_TIMESTAMP` get the current time.
    pub fn mutate(&self, mut cells: Vec<Cell>, durability: Durability) -> Result<u64> {
        self.requests.write();
        self.validate(&cells)?;
        self.wait_for_capacity()?;
        let updates = self.updates.read();
        // Checked under the update lock: `seal` sets the flag under the exclusive lock, so
        // every write either lands before the seal's final flush or is refused.
        self.check_not_sealed()?;
        let now = self.shared.clock.now_millis();
        let seq = self.mvcc.begin(|| self.shared.next_seq());
        for cell in &mut cells {
            if cell.timestamp == LATEST_TIMESTAMP {
                cell.timestamp = now;
            }
            cell.seq = seq;
        }
        let edit = WalEdit {
            region_id: self.id,
            seq,
            cells,
        };
        if durability != Durability::SkipWal {
            if let Err(e) = self.shared.wal.append(&edit, durability) {
                self.mvcc.complete(seq);
                return Err(e);
            }
        }
        let mut charged = 0;
        for cell in &edit.cells {
            charged += self.store(&cell.family)?.insert(cell);
        }
        drop(updates);
        self.shared.memory.charge(charged);
        self.mvcc.complete_and_wait(seq);
        self.maybe_request_flush();
        Ok(seq)
    }

    fn validate(&self, cells: &[Cell]) -> Result<()> {
        if cells.is_empty() {
            return Err(Error::InvalidArgument(
                "a mutation needs at least one cell".into(),
            ));
        }
        for cell in cells {
            cell.validate()?;
            self.store(&cell.family)?;
        }
        Ok(())
    }

    /// Backpressure: waits while memstores are over the memory limit or a store has too many
    /// files, and fails with TooBusy if that lasts past the configured timeout.
    fn wait_for_capacity(&self) -> Result<()> {
        self.shared
            .memory
            .wait_for_room(&|| self.shared.request_flush_of_largest())?;
        let blocking = self.shared.options.blocking_store_files;
        let timeout = self.shared.options.write_wait_timeout;
        let deadline = Instant::now() + timeout;
        while let Some(store) = self.stores.values().find(|s| s.file_count() >= blocking) {
            self.shared.request_compaction(self.id);
            if Instant::now() >= deadline {
                return Err(Error::TooBusy(format!(
                    "store '{}' of region {} has {} files (blocking threshold {blocking}) and \
                     compaction did not catch up within {timeout:?}",
                    String::from_utf8_lossy(store.family_name()),
                    self.id,
                    store.file_count()
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    pub(super) fn maybe_request_flush(&self) {
        let over_region = self.memstore_bytes() >= self.shared.options.memstore_flush_size;
        if (over_region || self.shared.memory.should_flush())
            && !self.flush_requested.swap(true, Ordering::AcqRel)
        {
            self.shared.request_flush(self.id);
        }
    }
}
