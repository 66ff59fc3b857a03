//! A region: a row-key range of a table, with one store per column family. It gives writes
//! a sequence id, logs them to the shared WAL, applies them to its stores' memstores, and
//! makes them visible all at once through its MVCC.

mod cached_read;
mod capacity;
mod compact;
mod context;
mod flush;
mod host;
pub mod mvcc;
mod read;
pub mod scanner;
mod seal;
mod stats;
mod write;

pub use context::{region_dir, RegionContext, RegionLimits, SequenceIds, StoreContextFactory};
pub use host::RegionHost;
pub use scanner::RegionScanner;
pub use write::PendingWrite;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use bytes::Bytes;
use parking_lot::RwLock;

use crate::error::{Error, Result};
use crate::fs::StoragePolicy;
use crate::options::FamilyOptions;
use crate::stats::RegionRequests;
use crate::store::Store;
use crate::wal::WalEdit;
use capacity::FileCountSignal;
use mvcc::Mvcc;

/// What identifies a region and its families when it is opened.
#[derive(Debug, Clone)]
pub struct RegionSpec {
    /// Unique among the engine's regions; names the region's directory and its WAL edits.
    pub id: u64,
    pub families: Vec<FamilyOptions>,
}

/// One region.
pub struct Region {
    id: u64,
    stores: BTreeMap<Bytes, Arc<Store>>,
    mvcc: Mvcc,
    /// Writers hold it shared while they insert; a flush holds it exclusively for the
    /// instant it swaps memstores, so no write is split across a flush.
    updates: RwLock<()>,
    /// One flush at a time, as in HBase. Two interleaved flushes could leave one family
    /// flushed up to a later write than another (the second found the first's memstore
    /// still being written and skipped that family), a state a snapshot must not record.
    flush_serial: parking_lot::Mutex<()>,
    ctx: Arc<RegionContext>,
    /// Weak: the host owns its regions, not the other way round. A region that outlives
    /// its host (a caller still holds it after the engine was dropped) just stops telling.
    host: Weak<dyn RegionHost>,
    /// Set once a flush was asked for and until one ran, so writers ask only once.
    flush_requested: AtomicBool,
    /// Woken when a flush or compaction changed the stores' file counts, for writers
    /// waiting on too many files.
    files_changed: FileCountSignal,
    /// Set while a split or merge retires the region: writes are refused (the caller
    /// retries on the new regions), reads go on over the frozen data.
    sealed: AtomicBool,
    /// The newest timestamp handed out for a write that took the server's time.
    last_server_ts: AtomicI64,
    pub(crate) requests: RegionRequests,
    /// What this open region's rows are cached under in the row cache (unique per open).
    cache_id: u64,
    /// Moved on by every alter of a family, so row-cache answers read under the old
    /// settings are not served.
    families_epoch: AtomicU64,
}

impl Region {
    /// Opens the region's stores in `ctx` and replays its recovered WAL edits. The region
    /// tells `host` when it needs a flush or compaction, and what it flushed.
    pub(crate) fn open(
        spec: RegionSpec,
        ctx: Arc<RegionContext>,
        host: Weak<dyn RegionHost>,
        recovered: Vec<WalEdit>,
    ) -> Result<Arc<Region>> {
        let started = ctx.clock.now();
        let stores = open_stores(spec.id, spec.families, &ctx)?;
        let max_file_seq = stores
            .values()
            .map(|s| s.max_file_seq().max(s.flushed_seq()))
            .max()
            .unwrap_or(0);
        ctx.sequence.skip_past(max_file_seq);
        // Edits replayed from another server's stream may be newer than anything here.
        if let Some(newest) = recovered.iter().map(|e| e.seq).max() {
            ctx.sequence.skip_past(newest);
        }
        let region = Region {
            id: spec.id,
            stores,
            mvcc: Mvcc::new(ctx.sequence.last()),
            updates: RwLock::new(()),
            flush_serial: parking_lot::Mutex::new(()),
            host,
            flush_requested: AtomicBool::new(false),
            files_changed: FileCountSignal::default(),
            sealed: AtomicBool::new(false),
            last_server_ts: AtomicI64::new(i64::MIN),
            requests: RegionRequests::default(),
            cache_id: crate::cache::row_cache::next_region_id(),
            families_epoch: AtomicU64::new(0),
            ctx,
        };
        let replayed = region.replay(recovered);
        let region = Arc::new(region);
        tracing::info!(
            region = region.id,
            replayed,
            duration_ms = (region.ctx.clock.now() - started).as_secs_f64() * 1e3,
            file_bytes = region.stores.values().map(|s| s.file_bytes()).sum::<u64>(),
            "region opened"
        );
        Ok(region)
    }

    /// Applies recovered edits newer than what each store has flushed.
    fn replay(&self, edits: Vec<WalEdit>) -> usize {
        let mut applied = 0;
        let mut charged = 0;
        for edit in edits {
            for cell in &edit.cells {
                let Some(store) = self.stores.get(&cell.family) else {
                    continue; // the family was dropped since
                };
                if edit.seq > store.flushed_seq() {
                    let mut cell = cell.clone();
                    cell.seq = edit.seq;
                    charged += store.insert(&cell);
                    applied += 1;
                }
            }
        }
        self.ctx.memory.charge(charged);
        applied
    }

    /// The region's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The parent files this region's stores reference (after a split or merge).
    pub fn referenced_paths(&self) -> Vec<String> {
        self.stores()
            .values()
            .flat_map(|s| s.referenced_paths())
            .collect()
    }

    /// The region's stores by family name.
    pub(crate) fn stores(&self) -> &BTreeMap<Bytes, Arc<Store>> {
        &self.stores
    }

    /// Applies altered settings of an existing family to its live store: new files and
    /// reads use them. Returns false (and changes nothing) when the region has no such
    /// family; adding or removing a family needs the region reopened.
    pub fn set_family(&self, family: FamilyOptions) -> bool {
        match self.stores.get(family.name.as_slice()) {
            Some(store) => {
                store.set_family(family);
                // After the settings: a read that sees the new epoch reads the new settings.
                self.families_epoch.fetch_add(1, Ordering::AcqRel);
                true
            }
            None => false,
        }
    }

    /// The store of `family`, or InvalidArgument naming it.
    pub(crate) fn store(&self, family: &[u8]) -> Result<&Arc<Store>> {
        self.stores.get(family).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "column family '{}' does not exist",
                String::from_utf8_lossy(family)
            ))
        })
    }

    /// Bytes held in this region's memstores.
    pub fn memstore_bytes(&self) -> u64 {
        self.stores
            .values()
            .map(|s| s.view().memstore_bytes())
            .sum()
    }

    /// Bytes in this region's memstores that no flush has set aside yet: what a flush
    /// requested now would free.
    pub fn active_memstore_bytes(&self) -> u64 {
        self.stores.values().map(|s| s.view().memstore.size()).sum()
    }

    /// Smallest sequence id not yet in an SSTable, if any. Writes in flight count: one may
    /// be in the WAL already and not yet in a memstore. (In-flight writes are looked at
    /// first: a write that completes meanwhile is then in a memstore.)
    pub fn min_unflushed_seq(&self) -> Option<u64> {
        let in_flight = self.mvcc.oldest_pending();
        self.stores
            .values()
            .filter_map(|s| s.view().min_unflushed_seq())
            .chain(in_flight)
            .min()
    }

    /// Each family's own `STORAGE_POLICY` (`None`: the server's): where its flushes and
    /// compactions write, which decides the background tier they run in.
    pub fn storage_policies(&self) -> Vec<Option<StoragePolicy>> {
        self.stores.values().map(|s| s.storage_policy()).collect()
    }

    /// Tells the host something, if it is still there.
    fn tell_host(&self, message: impl FnOnce(&dyn RegionHost)) {
        if let Some(host) = self.host.upgrade() {
            message(host.as_ref());
        }
    }
}

/// Opens one store per family; a family named twice, or with an empty name, is refused.
fn open_stores(
    region: u64,
    families: Vec<FamilyOptions>,
    ctx: &RegionContext,
) -> Result<BTreeMap<Bytes, Arc<Store>>> {
    let mut stores = BTreeMap::new();
    for family in families {
        if family.name.is_empty() {
            return Err(Error::InvalidArgument(
                "a column family name must not be empty".into(),
            ));
        }
        let store_ctx = ctx.stores.for_store(region, &family.name);
        let name = Bytes::from(family.name.clone());
        if stores
            .insert(name, Store::open(family, store_ctx)?)
            .is_some()
        {
            return Err(Error::InvalidArgument(
                "a column family is listed twice".into(),
            ));
        }
    }
    Ok(stores)
}

#[cfg(test)]
mod cached_read_tests;
#[cfg(test)]
mod tests;
