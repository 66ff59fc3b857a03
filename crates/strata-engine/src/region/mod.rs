//! A region: a row-key range of a table, with one store per column family. It gives writes
//! a sequence id, logs them to the shared WAL, applies them to its stores' memstores, and
//! makes them visible all at once through its MVCC.

pub mod mvcc;
mod read;
mod seal;
mod write;

pub use write::PendingWrite;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::RwLock;

use crate::engine::Shared;
use crate::error::{Error, Result};
use crate::options::FamilyOptions;
use crate::store::{CompactionOutcome, Store, StoreContext};
use crate::wal::WalEdit;
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
    shared: Arc<Shared>,
    pub(crate) flush_requested: AtomicBool,
    pub(crate) compaction_requested: AtomicBool,
    /// Set while a split or merge retires the region: writes are refused (the caller
    /// retries on the new regions), reads go on over the frozen data.
    sealed: AtomicBool,
    /// The newest timestamp handed out for a write that took the server's time.
    last_server_ts: AtomicI64,
    pub(crate) requests: crate::stats::RegionRequests,
}

impl Region {
    /// Opens the region's stores and replays its recovered WAL edits.
    pub(crate) fn open(
        spec: RegionSpec,
        shared: Arc<Shared>,
        recovered: Vec<WalEdit>,
    ) -> Result<Arc<Region>> {
        let started = std::time::Instant::now();
        let mut stores = BTreeMap::new();
        for family in spec.families {
            if family.name.is_empty() {
                return Err(Error::InvalidArgument(
                    "a column family name must not be empty".into(),
                ));
            }
            let ctx = StoreContext {
                volumes: Arc::clone(&shared.volumes),
                cache: Arc::clone(&shared.cache),
                relative_dir: region_dir(spec.id).join(crate::store::family_dir_name(&family.name)),
            };
            let name = Bytes::from(family.name.clone());
            if stores.insert(name, Store::open(family, ctx)?).is_some() {
                return Err(Error::InvalidArgument(
                    "a column family is listed twice".into(),
                ));
            }
        }
        let max_file_seq = stores
            .values()
            .map(|s| s.max_file_seq().max(s.flushed_seq()))
            .max()
            .unwrap_or(0);
        shared.bump_seq(max_file_seq);
        let region = Region {
            id: spec.id,
            stores,
            mvcc: Mvcc::new(shared.last_seq()),
            updates: RwLock::new(()),
            shared,
            flush_requested: AtomicBool::new(false),
            compaction_requested: AtomicBool::new(false),
            sealed: AtomicBool::new(false),
            last_server_ts: AtomicI64::new(i64::MIN),
            requests: crate::stats::RegionRequests::default(),
        };
        let replayed = region.replay(recovered);
        let region = Arc::new(region);
        tracing::info!(
            region = region.id,
            replayed,
            duration_ms = started.elapsed().as_secs_f64() * 1e3,
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
        self.shared.memory.charge(charged);
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
    pub fn stores(&self) -> &BTreeMap<Bytes, Arc<Store>> {
        &self.stores
    }

    /// The store of `family`, or InvalidArgument naming it.
    pub fn store(&self, family: &[u8]) -> Result<&Arc<Store>> {
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

    /// Flushes every store's memstore to SSTables, now, in the calling thread. On success
    /// every write acknowledged before the call is in an SSTable.
    pub fn flush(&self) -> Result<()> {
        // A snapshot that already exists (left by a failed flush, or being written by a
        // concurrent one) holds only older edits and is flushed first; then a second round
        // flushes the memstore as it was at this call.
        if self.flush_round()? {
            self.flush_round()?;
        }
        Ok(())
    }

    /// One flush of every store; returns true if some store had a snapshot already, so its
    /// memstore was not taken.
    fn flush_round(&self) -> Result<bool> {
        let mut had_snapshot = false;
        let prepared: Vec<&Arc<Store>> = {
            let _exclusive = self.updates.write();
            self.stores
                .values()
                .filter(|s| {
                    had_snapshot |= s.view().snapshot.is_some();
                    s.prepare_flush()
                })
                .collect()
        };
        // The stores commit their flushes one by one, so a crash between two commits keeps
        // part of each flushed write in SSTables and the rest only in the WAL. Making the WAL
        // durable before each snapshot is written (as HBase does before a flush) lets replay
        // restore the rest of every logged write, however it was acknowledged. (Per snapshot,
        // because a concurrent flush may have set aside the snapshot a store writes.)
        let now = self.shared.clock.now_millis();
        // A snapshot may hold writes queued on the WAL and not yet resolved; it is written
        // only once each is durable and visible, or was taken back out (its batch failed).
        let before_write = |max_seq: u64| {
            self.shared.wal.sync()?;
            self.mvcc.wait_until_visible(max_seq);
            Ok(())
        };
        let mut result = Ok(());
        for store in prepared {
            let started = std::time::Instant::now();
            match store.flush_snapshot(now, &before_write) {
                Ok(freed) => {
                    self.shared.memory.release(freed);
                    let (elapsed, end) = (started.elapsed(), self.shared.clock.now_millis());
                    self.shared
                        .events
                        .flushed(self.id, store, freed, elapsed, end);
                }
                Err(e) => {
                    tracing::error!(region = self.id, error = %e, "flush failed; the snapshot stays in memory and is retried");
                    result = Err(e);
                }
            }
        }
        self.flush_requested.store(false, Ordering::Release);
        self.shared.after_flush();
        if result.is_ok() {
            // Writes that arrived during the flush found a flush already requested; if they
            // filled the memstore again, ask for the next one now rather than at the next
            // write, which may never come.
            self.maybe_request_flush();
        }
        result.map(|()| had_snapshot)
    }

    /// Compacts every store: all files when `major`, else what the policy picks. Returns
    /// what ran, per family (a minor compaction that picked every file ran as a major one).
    pub fn compact(&self, major: bool) -> Result<Vec<(Bytes, CompactionOutcome)>> {
        let now = self.shared.clock.now_millis();
        let had_references = self.has_references();
        let mut outcomes = Vec::new();
        for (family, store) in &self.stores {
            let started = std::time::Instant::now();
            let outcome = store.compact(
                major,
                &self.shared.options.compaction,
                self.shared.options.blocking_store_files,
                &self.shared.rate_limiter,
                now,
            )?;
            if let Some(outcome) = outcome {
                let (elapsed, end) = (started.elapsed(), self.shared.clock.now_millis());
                self.shared
                    .events
                    .compacted(self.id, family, &outcome, elapsed, end);
                outcomes.push((family.clone(), outcome));
            }
        }
        self.compaction_requested.store(false, Ordering::Release);
        if had_references && !self.has_references() {
            // This region no longer reads its parent's files; the parent may now go.
            if let Err(e) = self.shared.collect_retired() {
                tracing::warn!(region = self.id, error = %e, "could not remove retired regions");
            }
        }
        Ok(outcomes)
    }

    /// Bytes the stores' next background compaction would read, as things stand: how the
    /// scheduler tells a small compaction from a large one.
    pub fn compaction_input_bytes(&self) -> u64 {
        let options = &self.shared.options;
        self.stores
            .values()
            .map(|s| s.compaction_input_bytes(&options.compaction, options.blocking_store_files))
            .sum()
    }

    /// True if some store has enough files for a minor compaction.
    pub fn needs_compaction(&self) -> bool {
        let min_files = self.shared.options.compaction.min_files;
        self.stores
            .values()
            .any(|s| s.file_count() >= min_files || s.has_references())
    }
}

/// A region's directory relative to a volume root.
pub fn region_dir(id: u64) -> std::path::PathBuf {
    std::path::PathBuf::from("regions").join(format!("{id:016x}"))
}
