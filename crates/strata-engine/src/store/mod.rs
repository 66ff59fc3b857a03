//! A store: one column family of one region. It owns the family's memstore, its live
//! SSTables (recorded in its manifest) and the flush and compaction of them.

mod compact;
mod file;
mod flush;
mod held;
mod mover;
mod reference;
mod sources;
mod view;

use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};

pub use compact::CompactionOutcome;
pub use file::StoreFile;
pub use held::HeldFiles;
pub(crate) use mover::copy_file;
pub use mover::MoveRules;
pub use sources::SourceFilter;
pub use view::StoreView;

use crate::cache::BlockCache;
use crate::cell::Cell;
use crate::error::Result;
use crate::fs::{StoragePolicy, Volumes};
use crate::key;
use crate::manifest::{Manifest, StorePointer};
use crate::options::FamilyOptions;
use crate::table::{CachePolicy, TableReader};

/// Everything a store needs from its surroundings.
#[derive(Clone)]
pub struct StoreContext {
    pub volumes: Arc<Volumes>,
    pub cache: Arc<BlockCache>,
    /// Directory of the store relative to a volume root: `regions/<id>/<family>`.
    pub relative_dir: PathBuf,
    /// Shared storage (cluster mode): the store's manifest pointer. `None` on a local disk.
    pub pointer: Option<StorePointer>,
    /// The engine's obsolete files that readers still hold.
    pub held: HeldFiles,
}

impl StoreContext {
    /// Opens the store's manifest: by its pointer on shared storage, else from its directory.
    pub fn open_manifest(&self) -> Result<Manifest> {
        let fs = Arc::clone(self.volumes.fs());
        let dir = self.volumes.primary_dir(&self.relative_dir)?;
        match &self.pointer {
            Some(pointer) => Manifest::open_with_pointer(fs, dir, pointer.clone()),
            None => Manifest::open(fs, dir),
        }
    }

    /// The name of the SSTable numbered `file_number`, relative to a volume root. On
    /// shared storage it carries the writer's tag, so a zombie still flushing a region and
    /// the region's new owner, which share file numbers, never pick the same name.
    pub fn table_path(&self, file_number: u64) -> PathBuf {
        let name = match &self.pointer {
            Some(pointer) => format!("{file_number:016}-{}.sst", pointer.pointers.writer_tag()),
            None => format!("{file_number:016}.sst"),
        };
        self.relative_dir.join(name)
    }
}

/// One column family of one region.
pub struct Store {
    family: RwLock<FamilyOptions>,
    family_name: Bytes,
    ctx: StoreContext,
    view: RwLock<Arc<StoreView>>,
    manifest: Mutex<Manifest>,
    /// One flush and one compaction at a time per store; they may overlap each other.
    flush_lock: Mutex<()>,
    compaction_lock: Mutex<()>,
    /// Set while the region is sealed for a split or merge: new regions are about to
    /// reference exactly the current files, so no compaction may replace them.
    frozen: std::sync::atomic::AtomicBool,
}

/// The directory name of a family: the name itself when it is plain ASCII, else hex, so any
/// byte string maps to a safe, unique file name.
pub fn family_dir_name(name: &[u8]) -> String {
    let plain = !name.is_empty()
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && name.first() != Some(&b'.');
    if plain {
        String::from_utf8_lossy(name).into_owned()
    } else {
        let hex: String = name.iter().map(|b| format!("{b:02x}")).collect();
        format!("x-{hex}")
    }
}

impl Store {
    /// Opens the store: loads its manifest and opens every live SSTable.
    pub fn open(family: FamilyOptions, ctx: StoreContext) -> Result<Arc<Store>> {
        let fs = Arc::clone(ctx.volumes.fs());
        let manifest = ctx.open_manifest()?;
        let policy = CachePolicy::from_family(&family);
        let mut files = Vec::new();
        for entry in &manifest.state().files {
            let path = ctx
                .volumes
                .resolve(&entry.volume, std::path::Path::new(&entry.relative_path))?;
            let reader = TableReader::open(
                fs.open_read(&path)?,
                path.clone(),
                Some(Arc::clone(&ctx.cache)),
                policy,
            )?;
            files.push(StoreFile::new(
                entry.clone(),
                reader,
                path,
                Arc::clone(&fs),
                &ctx.held,
            ));
        }
        files.sort_by_key(|f| std::cmp::Reverse(f.entry.max_seq));
        let store = Store {
            family_name: Bytes::from(family.name.clone()),
            family: RwLock::new(family),
            ctx,
            view: RwLock::new(Arc::new(StoreView::with_files(files))),
            manifest: Mutex::new(manifest),
            flush_lock: Mutex::new(()),
            compaction_lock: Mutex::new(()),
            frozen: std::sync::atomic::AtomicBool::new(false),
        };
        // On shared storage an unlisted file may be another server's (a zombie's flush, or
        // a split's daughter being written): only the garbage collector, which knows every
        // pointer and reader, deletes there.
        if store.ctx.pointer.is_none() {
            store.remove_unreferenced_files()?;
        }
        Ok(Arc::new(store))
    }

    /// Deletes SSTables in the store's directories that the manifest does not list: leftovers
    /// of a flush or compaction that crashed before its manifest commit.
    fn remove_unreferenced_files(&self) -> Result<()> {
        let manifest = self.manifest.lock();
        let live: std::collections::HashSet<&str> = manifest
            .state()
            .files
            .iter()
            .map(|f| f.relative_path.as_str())
            .collect();
        let fs = self.ctx.volumes.fs();
        for volume in self.ctx.volumes.list() {
            let dir = self
                .ctx
                .volumes
                .resolve(&volume.name, &self.ctx.relative_dir)?;
            for name in fs.list(&dir)? {
                let relative = self.ctx.relative_dir.join(&name);
                let is_table = name.ends_with(".sst");
                if is_table && !live.contains(relative.to_string_lossy().as_ref()) {
                    tracing::info!(file = %dir.join(&name).display(), "removing unreferenced SSTable");
                    fs.remove(&dir.join(&name))?;
                }
            }
        }
        Ok(())
    }

    /// The family name.
    pub fn family_name(&self) -> &Bytes {
        &self.family_name
    }

    /// The family's current settings.
    pub fn family(&self) -> FamilyOptions {
        self.family.read().clone()
    }

    /// The family's own `STORAGE_POLICY` (`None`: the server's), without cloning the
    /// settings.
    pub fn storage_policy(&self) -> Option<StoragePolicy> {
        self.family.read().storage_policy
    }

    /// Whether the family's point reads may be cached, and its TTL in milliseconds: what the
    /// row cache asks on every read, without cloning the settings.
    pub fn row_cache_settings(&self) -> (bool, Option<i64>) {
        let family = self.family.read();
        (family.row_cache, family.ttl_millis())
    }

    /// Replaces the family's settings (alter); new files and reads use them.
    pub fn set_family(&self, family: FamilyOptions) {
        *self.family.write() = family;
    }

    /// The current view; cheap to take, and stays valid however long it is held.
    pub fn view(&self) -> Arc<StoreView> {
        Arc::clone(&self.view.read())
    }

    /// Every edit of this store up to this sequence id is in an SSTable.
    pub fn flushed_seq(&self) -> u64 {
        self.manifest.lock().state().flushed_seq
    }

    /// Largest sequence id in any live SSTable.
    pub fn max_file_seq(&self) -> u64 {
        self.view()
            .files
            .iter()
            .map(|f| f.entry.max_seq)
            .max()
            .unwrap_or(0)
    }

    /// Adds a cell (with its sequence id set) to the memstore; returns the bytes charged.
    /// The caller holds the region's update lock, so no flush swaps the memstore meanwhile.
    pub fn insert(&self, cell: &Cell) -> u64 {
        let key = internal_key(cell);
        self.view
            .read()
            .memstore
            .insert(key, cell.value.clone(), cell.seq)
    }

    /// Takes back a cell whose write was never logged (its WAL batch failed): removes it
    /// from the memstore, or from the snapshot if a flush set that memstore aside since
    /// (a flush writes a snapshot only after every write in it is resolved). Returns the
    /// bytes freed.
    pub fn remove_unlogged(&self, cell: &Cell) -> u64 {
        let key = internal_key(cell);
        let view = self.view.read();
        let snapshot = view.snapshot.as_ref().map_or(0, |s| s.remove(&key));
        view.memstore.remove(&key) + snapshot
    }

    /// Number of live SSTables.
    pub fn file_count(&self) -> usize {
        self.view().files.len()
    }

    /// Total bytes of live SSTables.
    pub fn file_bytes(&self) -> u64 {
        self.view().files.iter().map(|f| f.entry.size).sum()
    }
}

/// A cell's internal key in its store (the family is the store's).
fn internal_key(cell: &Cell) -> Vec<u8> {
    key::make_key(
        &cell.row,
        &cell.qualifier,
        cell.timestamp,
        cell.cell_type,
        cell.seq,
    )
}
