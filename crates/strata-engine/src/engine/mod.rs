//! The engine: one per process. It owns the volumes, the WAL, the block cache, the memory
//! limit and the background worker, and opens regions on them.

mod lanes;
mod options;
mod reference;
mod shared;
mod wal_bound;
mod worker;

use std::collections::HashMap;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::Mutex;

pub use lanes::{Lane, LaneLoad};
pub use options::EngineOptions;
pub(crate) use shared::Shared;

use crate::cache::BlockCache;
use crate::error::{Error, Result};
use crate::fs::{FileCategory, FirstVolume, Volumes};
use crate::region::{region_dir, Region, RegionSpec};
use crate::wal::{Wal, WalEdit};
use lanes::Scheduler;

/// A running storage engine.
pub struct Engine {
    pub(crate) shared: Arc<Shared>,
    /// The background threads, one set per lane; empty without background work.
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl Engine {
    /// Opens the engine: replays the WAL (keeping each region's edits until it is opened)
    /// and starts background work.
    pub fn open(options: EngineOptions) -> Result<Arc<Engine>> {
        let threads = options.lane_threads();
        if options.background_work {
            threads.validate()?;
        }
        let volumes = Arc::new(build_volumes(&options)?);
        let wal_dir = volumes
            .place(FileCategory::Wal, std::path::Path::new("wal"))?
            .path;
        let mut recovered: HashMap<u64, Vec<WalEdit>> = HashMap::new();
        let mut last_seq = 0;
        let wal = Wal::open(
            Arc::clone(volumes.fs()),
            Arc::clone(&options.clock),
            wal_dir,
            options.wal.clone(),
            &mut |edit: WalEdit| {
                last_seq = last_seq.max(edit.seq);
                recovered.entry(edit.region_id).or_default().push(edit);
                Ok(())
            },
        )?;
        let edits: usize = recovered.values().map(Vec::len).sum();
        tracing::info!(edits, last_seq, "WAL replayed");
        let cache = BlockCache::new(options.block_cache_bytes);
        let scheduler = Arc::new(Scheduler::new(options.background_work));
        let background = options.background_work;
        let shared = Arc::new(Shared::new(
            options,
            volumes,
            cache,
            wal,
            last_seq,
            recovered,
            Arc::clone(&scheduler),
        ));
        let workers = if background {
            worker::spawn(&Arc::downgrade(&shared), &scheduler, threads)?
        } else {
            Vec::new()
        };
        Ok(Arc::new(Engine {
            shared,
            workers: Mutex::new(workers),
        }))
    }

    /// Opens a region (creating its stores on first use) and replays its recovered edits.
    pub fn open_region(&self, spec: RegionSpec) -> Result<Arc<Region>> {
        let id = spec.id;
        if self.shared.region(id).is_some() {
            return Err(Error::InvalidArgument(format!(
                "region {id} is already open"
            )));
        }
        let recovered = self.shared.recovered.lock().remove(&id).unwrap_or_default();
        let region = Region::open(spec, Arc::clone(&self.shared), recovered)?;
        // Open again: its references count through the open region from now on. Both sets
        // change under the `closed_refs` lock, which `collect_retired` holds while it reads
        // them, so a region is never missing from both.
        let mut closed = self.shared.closed_refs.lock();
        self.shared.regions.write().insert(id, Arc::clone(&region));
        closed.remove(&id);
        Ok(region)
    }

    /// The open region `id`, if any.
    pub fn region(&self, id: u64) -> Option<Arc<Region>> {
        self.shared.region(id)
    }

    /// Asks the flush lane to flush a region in the background.
    pub fn request_flush(&self, id: u64) {
        self.shared.request_flush(id);
    }

    /// Flushes a region and closes it. Its files stay; `open_region` brings it back.
    pub fn close_region(&self, id: u64) -> Result<()> {
        let region = self
            .shared
            .region(id)
            .ok_or_else(|| Error::NotFound(format!("region {id} is not open")))?;
        region.flush()?;
        // No compaction may run on or after a closed region: one still running on a lane
        // would commit a manifest (and delete the one before it) while the region is opened
        // again from those files.
        for store in region.stores().values() {
            store.freeze();
        }
        // Its references move to `closed_refs` in the same step as it leaves the open set,
        // so a concurrent `collect_retired` never deletes a parent it still needs (found by
        // the embedded API's tests: split twice, then alter the table).
        let mut closed = self.shared.closed_refs.lock();
        closed.insert(id, region.referenced_paths());
        self.shared.regions.write().remove(&id);
        Ok(())
    }

    /// Deletes the files of one column family of a closed region (the family was removed
    /// from its table), so a family added later under the same name starts empty.
    pub fn drop_store(&self, id: u64, family: &[u8]) -> Result<()> {
        if self.shared.region(id).is_some() {
            return Err(Error::InvalidArgument(format!("region {id} is still open")));
        }
        let relative = region_dir(id).join(crate::store::family_dir_name(family));
        for volume in self.shared.volumes.list() {
            let dir = self.shared.volumes.resolve(&volume.name, &relative)?;
            self.shared.volumes.fs().remove_dir_all(&dir)?;
        }
        Ok(())
    }

    /// Forgets a closed region's recovered WAL edits and deletes its files: the region is
    /// gone for good (table dropped).
    pub fn drop_region(&self, id: u64) -> Result<()> {
        if self.shared.region(id).is_some() {
            return Err(Error::InvalidArgument(format!("region {id} is still open")));
        }
        self.shared.recovered.lock().remove(&id);
        self.shared.regions.write().remove(&id);
        self.shared.closed_refs.lock().remove(&id);
        for volume in self.shared.volumes.list() {
            let dir = self.shared.volumes.resolve(&volume.name, &region_dir(id))?;
            self.shared.volumes.fs().remove_dir_all(&dir)?;
        }
        Ok(())
    }

    /// The block cache, for statistics.
    pub fn block_cache(&self) -> &Arc<BlockCache> {
        &self.shared.cache
    }

    /// The WAL, for statistics.
    pub fn wal(&self) -> &Arc<Wal> {
        &self.shared.wal
    }

    /// Bytes held in all memstores.
    pub fn memstore_bytes(&self) -> u64 {
        self.shared.memory.used()
    }

    /// Stops background work (each thread finishes its current task), flushes every open
    /// region, and syncs and closes the WAL.
    pub fn close(&self) -> Result<()> {
        self.stop_background_work();
        for region in self.shared.open_regions() {
            region.flush()?;
        }
        self.shared.regions.write().clear();
        self.shared.wal.close()
    }

    fn stop_background_work(&self) {
        let handles = std::mem::take(&mut *self.workers.lock());
        worker::stop(&self.shared.scheduler, handles);
    }
}

impl Drop for Engine {
    /// Without `close` this is a crash as far as data goes: nothing is flushed, and the
    /// WAL replays on the next open. Regions are released (they hold the shared state).
    fn drop(&mut self) {
        self.shared.regions.write().clear();
        self.stop_background_work();
    }
}

fn build_volumes(options: &EngineOptions) -> Result<Volumes> {
    let fs = Arc::clone(&options.fs);
    let volumes = if options.volumes.is_empty() {
        Volumes::single(fs, options.data_dir.clone())
    } else {
        let policy = options
            .placement
            .clone()
            .unwrap_or_else(|| Arc::new(FirstVolume));
        Volumes::new(fs, options.volumes.clone(), policy)?
    };
    for volume in volumes.list() {
        volumes.fs().create_dir_all(&volume.root)?;
    }
    Ok(volumes)
}
