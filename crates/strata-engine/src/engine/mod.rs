//! The engine: one per process. It owns the volumes, the WAL, the block cache, the memory
//! limit and the background worker, opens regions on them, and hosts them: regions tell it
//! what they need ([`EngineHost`]), and it alone looks across them ([`RegionSet`]).

mod host;
mod lanes;
mod mover;
mod options;
mod region_set;
mod snapshot_archive;
mod snapshot_clone;
mod snapshots;
mod split_merge;
mod stats;
mod tiers;
mod wal_flush_policy;
mod worker;

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;

use parking_lot::Mutex;

pub use lanes::Lane;
pub use mover::MoveReport;
pub use options::EngineOptions;

use crate::cache::{BlockCache, L2Cache, RowCache};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, FirstVolume, RetainingFs, Volumes};
use crate::memstore::limiter::MemoryLimiter;
use crate::options::WalGroupCount;
use crate::region::{
    region_dir, Region, RegionContext, RegionHost, RegionSpec, SequenceIds, StoreContextFactory,
};
use crate::stats::EventLog;
use crate::util::rate_limiter::RateLimiter;
use crate::wal::{open_groups, Wal, WalEdit, WalGroups};
use host::EngineHost;
use lanes::Scheduler;
use region_set::RegionSet;

/// A running storage engine.
pub struct Engine {
    options: EngineOptions,
    /// Paces the mover's copies (`EngineOptions::mover_bytes_per_sec`).
    mover_limiter: RateLimiter,
    volumes: Arc<Volumes>,
    cache: Arc<BlockCache>,
    /// What every region of the engine runs on.
    context: Arc<RegionContext>,
    host: Arc<EngineHost>,
    /// The background threads, one set per lane; empty without background work.
    workers: Mutex<Vec<JoinHandle<()>>>,
    /// Held by every snapshot operation (`snapshots.rs`).
    snapshot_lock: Mutex<()>,
}

/// The WAL as replayed at open: the newest sequence id in it, and each region's edits.
struct Replayed {
    wal: Arc<WalGroups>,
    last_seq: u64,
    edits: HashMap<u64, Vec<WalEdit>>,
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
        let replayed = replay_wal(&options, &volumes)?;
        let l2 = options.l2_cache.as_ref().map(L2Cache::open).transpose()?;
        if l2.is_some() && options.block_cache_bytes == 0 {
            // L2 is filled only by what the in-memory level evicts.
            tracing::warn!("the L2 block cache stays empty with block_cache_mb = 0");
        }
        let cache = BlockCache::with_l2(options.block_cache_bytes, l2);
        let stores = StoreContextFactory::new(Arc::clone(&volumes), Arc::clone(&cache))
            .with_pointers(options.manifest_pointers.clone());
        let context = Arc::new(region_context(
            &options,
            replayed.wal,
            replayed.last_seq,
            stores,
        ));
        let tiers = tiers::Tiers::of(&volumes, options.lanes_per_storage_type);
        let scheduler = Arc::new(Scheduler::new(options.background_work, tiers.len()));
        let host = Arc::new(EngineHost::new(
            RegionSet::new(replayed.edits),
            Arc::clone(&scheduler),
            Arc::clone(&context),
            Arc::clone(&volumes),
            options.compaction_throttle(),
            tiers,
        ));
        let workers = if options.background_work {
            worker::spawn(&Arc::downgrade(&host), &scheduler, threads)?
        } else {
            Vec::new()
        };
        let mover_limiter =
            RateLimiter::new(options.mover_bytes_per_sec, Arc::clone(&options.clock));
        let engine = Arc::new(Engine {
            mover_limiter,
            options,
            volumes,
            cache,
            context,
            host,
            workers: Mutex::new(workers),
            snapshot_lock: Mutex::new(()),
        });
        if engine.options.manifest_pointers.is_none() {
            engine.collect_snapshot_leftovers()?;
        }
        Ok(engine)
    }

    /// Opens a region (creating its stores on first use) and replays its recovered edits.
    pub fn open_region(&self, spec: RegionSpec) -> Result<Arc<Region>> {
        self.open_region_with(spec, Vec::new())
    }

    /// Opens a region as [`Engine::open_region`] does, replaying `foreign` edits as well:
    /// the region's section of another server's WAL stream, when the region moved here
    /// after that server died. Sequence ids skip past them. They are in no WAL of this
    /// engine, so the caller flushes the region before that stream may be collected.
    pub fn open_region_with(&self, spec: RegionSpec, foreign: Vec<WalEdit>) -> Result<Arc<Region>> {
        let id = spec.id;
        if self.host.regions.get(id).is_some() {
            return Err(Error::InvalidArgument(format!(
                "region {id} is already open"
            )));
        }
        let mut recovered = self.host.regions.take_recovered(id);
        recovered.extend(foreign);
        let host: Weak<dyn RegionHost> = Arc::downgrade(&self.host) as Weak<EngineHost>;
        let region = Region::open(spec, Arc::clone(&self.context), host, recovered)?;
        self.host.regions.add(Arc::clone(&region));
        Ok(region)
    }

    /// The open region `id`, if any.
    pub fn region(&self, id: u64) -> Option<Arc<Region>> {
        self.host.regions.get(id)
    }

    /// Each volume's health (state, sync latency, errors), when there are several.
    pub fn volume_health(&self) -> Vec<(String, crate::fs::VolumeHealthReport)> {
        self.volumes.health_report()
    }

    /// Flushes every open region now (cluster mode, after replaying another server's WAL
    /// stream: its edits are then in SSTables and the stream is no longer needed).
    pub fn flush_all(&self) -> Result<()> {
        for region in self.host.regions.all() {
            region.flush()?;
        }
        Ok(())
    }

    /// Asks for a flush of the region pinning the oldest WAL data once the WAL holds too
    /// much (`wal_flush_policy.rs`). Flushes check this themselves; a WAL backend that
    /// grows without any flush (cluster mode's object stream under small writes) needs a
    /// periodic call so that replay after a failover stays short.
    pub fn keep_wal_bounded(&self) {
        for region in self.host.regions.regions_pinning_the_wal(&self.context.wal) {
            self.host.request_flush(region);
        }
    }

    /// Asks the flush lane to flush a region in the background.
    pub fn request_flush(&self, id: u64) {
        self.host.request_flush(id);
    }

    /// Flushes a region and closes it. Its files stay; `open_region` brings it back.
    pub fn close_region(&self, id: u64) -> Result<()> {
        let region = self
            .region(id)
            .ok_or_else(|| Error::NotFound(format!("region {id} is not open")))?;
        region.flush()?;
        // No compaction may run on or after a closed region: one still running on a lane
        // would commit a manifest (and delete the one before it) while the region is opened
        // again from those files.
        for store in region.stores().values() {
            store.freeze();
        }
        self.host.regions.close(&region);
        Ok(())
    }

    /// Deletes the files of one column family of a closed region (the family was removed
    /// from its table), so a family added later under the same name starts empty.
    pub fn drop_store(&self, id: u64, family: &[u8]) -> Result<()> {
        self.check_closed(id)?;
        let relative = region_dir(id).join(crate::store::family_dir_name(family));
        for volume in self.volumes.list() {
            let dir = self.volumes.resolve(&volume.name, &relative)?;
            self.volumes.fs().remove_dir_all(&dir)?;
        }
        Ok(())
    }

    /// Forgets a closed region's recovered WAL edits and deletes its files: the region is
    /// gone for good (table dropped).
    pub fn drop_region(&self, id: u64) -> Result<()> {
        self.check_closed(id)?;
        self.host.regions.forget(id);
        region_set::remove_region_dirs(&self.volumes, id)
    }

    fn check_closed(&self, id: u64) -> Result<()> {
        match self.region(id) {
            Some(_) => Err(Error::InvalidArgument(format!("region {id} is still open"))),
            None => Ok(()),
        }
    }

    /// Bytes held in all memstores.
    pub fn memstore_bytes(&self) -> u64 {
        self.context.memory.used()
    }

    /// Stops background work (each thread finishes its current task), flushes every open
    /// region, and syncs and closes the WAL.
    pub fn close(&self) -> Result<()> {
        self.stop_background_work();
        for region in self.host.regions.all() {
            region.flush()?;
        }
        self.host.regions.clear();
        // The second cache level is only a cache: failing to persist it costs the next
        // process its warm blocks, not data, so it does not fail the close.
        if let Err(e) = self.cache.close_l2() {
            tracing::warn!(error = %e, "could not persist the L2 block cache; the next start begins empty");
        }
        self.context.wal.close()
    }

    fn stop_background_work(&self) {
        let handles = std::mem::take(&mut *self.workers.lock());
        worker::stop(&self.host.scheduler, handles);
    }
}

impl Drop for Engine {
    /// Without `close` this is a crash as far as data goes: nothing is flushed, and the
    /// WAL replays on the next open.
    fn drop(&mut self) {
        self.stop_background_work();
    }
}

fn build_volumes(options: &EngineOptions) -> Result<Volumes> {
    let fs: Arc<dyn FileSystem> = match options.manifest_pointers {
        Some(_) => Arc::new(RetainingFs::new(Arc::clone(&options.fs))),
        None => Arc::clone(&options.fs),
    };
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
    let volumes = volumes.with_tier_settings(options.tier_settings.clone());
    // With a choice of volumes, placement passes over slow, failing or full ones.
    Ok(if volumes.list().len() > 1 {
        volumes
            .with_health(Arc::clone(&options.clock))
            .avoiding_slow_volumes(options.avoid_slow_volumes)
    } else {
        volumes
    })
}

/// What the engine's regions run on: `wal`, whose newest edit is `last_seq`, and `stores`.
fn region_context(
    options: &EngineOptions,
    wal: Arc<WalGroups>,
    last_seq: u64,
    stores: StoreContextFactory,
) -> RegionContext {
    let clock = Arc::clone(&options.clock);
    let timeout = options.write_wait_timeout;
    let rate_limiter = RateLimiter::new(options.compaction_bytes_per_sec, Arc::clone(&clock));
    RegionContext {
        wal,
        sequence: SequenceIds::starting_after(last_seq),
        memory: MemoryLimiter::new(options.memstore_limit, timeout, Arc::clone(&clock)),
        clock,
        limits: options.region_limits(),
        rate_limiter,
        events: EventLog::default(),
        stores,
        row_cache: RowCache::new(options.row_cache_bytes),
    }
}

/// Opens the WAL, replaying it: each region's edits are kept until the region is opened.
fn replay_wal(options: &EngineOptions, volumes: &Volumes) -> Result<Replayed> {
    let mut edits: HashMap<u64, Vec<WalEdit>> = HashMap::new();
    let mut last_seq = 0;
    let mut on_edit = |edit: WalEdit| {
        last_seq = last_seq.max(edit.seq);
        edits.entry(edit.region_id).or_default().push(edit);
        Ok(())
    };
    let clock = Arc::clone(&options.clock);
    let wal = match &options.wal_backend {
        Some(opener) => {
            if options.wal.groups != WalGroupCount::Fixed(1) {
                return Err(Error::InvalidArgument(
                    "WAL groups need the local WAL: a WAL backend (cluster mode's object \
                     stream) is one log"
                        .into(),
                ));
            }
            let wal = Wal::open_backend(opener.as_ref(), clock, options.wal.clone(), &mut on_edit)?;
            WalGroups::single(wal)
        }
        None => open_groups(volumes, clock, &options.wal, &mut on_edit)?,
    };
    // Each log replays a region's edits in seq order, but after the group count changed
    // a region's edits may be in two logs; regions replay their edits in seq order.
    for region_edits in edits.values_mut() {
        region_edits.sort_by_key(|e| e.seq);
    }
    let count: usize = edits.values().map(Vec::len).sum();
    tracing::info!(
        edits = count,
        last_seq,
        groups = wal.group_count(),
        "WAL replayed"
    );
    Ok(Replayed {
        wal: Arc::new(wal),
        last_seq,
        edits,
    })
}

#[cfg(test)]
mod stats_tests;
