//! The WAL backend seam: where a group-commit batch is stored durably, replayed from, and
//! dropped once every region has flushed it. The group commit queue, the edit encoding and
//! the durability levels stay in [`super::Wal`]; a backend only sees whole batches.
//!
//! Two implementations exist: the local segment files ([`super::local::LocalSegments`],
//! the default) and, in `strata-objstore`, one server's stream of WAL objects.

use super::edit::WalEdit;
use crate::error::Result;
use crate::options::Durability;

/// One group-commit batch, as the leader hands it to the backend.
#[derive(Debug, Clone, Copy)]
pub struct WalBatch<'a> {
    /// Concatenated framed WAL v1 records (`codec::encode_record`), in arrival order,
    /// regions mixed. Empty for a pure flush or sync request.
    pub records: &'a [u8],
    /// The strongest durability any member asked for (`AsyncWal` batches are written by
    /// the background flusher with `SyncWal`).
    pub durability: Durability,
    /// The highest edit seq in the batch, if it holds any edit.
    pub max_seq: Option<u64>,
}

/// Stores group-commit batches. `Ok` from [`WalBackend::write_batch`] acknowledges every
/// write of the batch, so it must come only once the batch meets `batch.durability`; an
/// `Err` fails the whole batch (nothing of it is acknowledged; it may or may not replay).
pub trait WalBackend: Send + Sync {
    /// Stores one batch. Called by one group-commit leader at a time, in WAL order.
    fn write_batch(&self, batch: &WalBatch<'_>) -> Result<()>;

    /// Makes everything written so far durable, for what `write_batch` may defer (the
    /// local backend syncs rolled segments here). The default has nothing deferred.
    fn sync_deferred(&self) -> Result<()> {
        Ok(())
    }

    /// Every edit with a seq below `min_unflushed_seq` is in SSTables: the backend may
    /// drop what holds only such edits. Returns how many units (segments) it dropped.
    fn mark_flushed(&self, min_unflushed_seq: u64) -> Result<usize>;

    /// Called once by `Wal::close`, after the final sync; later writes are refused before
    /// they reach the backend.
    fn close(&self) -> Result<()>;

    /// What the backend holds that a crash would replay, in the local WAL's segments (or
    /// their equivalent), for the flush policy that keeps replay bounded
    /// (`engine/wal_flush_policy.rs`). The local backend counts its segments itself.
    fn live_units(&self) -> u64 {
        0
    }
}

/// Opens a backend: replays everything it holds, then is ready for new batches.
pub trait WalBackendOpener: Send + Sync {
    /// Calls `on_edit` for every stored edit, in WAL order within each region (edits of
    /// one region must arrive in seq order), then returns the backend. An edit may be
    /// replayed although its region already flushed it: the region skips it by seq.
    fn open(&self, on_edit: &mut dyn FnMut(WalEdit) -> Result<()>) -> Result<Box<dyn WalBackend>>;
}
