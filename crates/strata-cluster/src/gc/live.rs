//! [`LiveSet`]: the object keys under `data/` a pass must keep, read from the current
//! manifest of every store of every region the catalog lists (the manifest itself, its
//! files, and the parent files its reference entries name), plus the manifest every
//! pointer names, whatever its region.
//!
//! Why keep a dropped region's pointed-to manifest: a master allocates region ids above
//! every region directory in the store, so keeping one object per dropped store keeps ids
//! from being reused (a reused id would find the old pointer in etcd), and no pointer ever
//! names a missing object. Its SSTables go.

use std::collections::HashSet;
use std::path::Path;

use object_store::path::Path as ObjectPath;
use strata_engine::tools::{read_manifest, ManifestRead, StoreFileEntry};
use strata_objstore::{BlockingStore, RetryPolicy};

use crate::error::{Error, Result};
use crate::gc::inputs::Snapshot;
use crate::objects::{path_key, DATA_ROOT};

/// The only volume of an engine on the object store (`Volumes::single`).
const VOLUME: &str = "default";

/// The key prefix of region `rid`'s objects: `data/regions/<16 hex digits>/`.
pub fn region_prefix(rid: u64) -> String {
    format!("{DATA_ROOT}/regions/{rid:016x}/")
}

/// The key of manifest `number` of `family` in region `rid`.
pub fn manifest_key(rid: u64, family: &str, number: u64) -> String {
    format!("{}{family}/MANIFEST-{number:020}", region_prefix(rid))
}

/// The object key of a manifest entry's file (a reference names its owner's file).
fn entry_key(entry: &StoreFileEntry, manifest: &str) -> Result<String> {
    if entry.volume != VOLUME {
        return Err(Error::Collector(format!(
            "{manifest} lists {} on volume {:?}, not an object-store file",
            entry.relative_path, entry.volume
        )));
    }
    path_key(&Path::new(DATA_ROOT).join(&entry.relative_path)).ok_or_else(|| {
        Error::Collector(format!(
            "{manifest} lists a file outside the store: {:?}",
            entry.relative_path
        ))
    })
}

/// The keys under `data/` that must stay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveSet {
    keys: HashSet<String>,
}

impl LiveSet {
    /// Reads every live store's current manifest. Any manifest that cannot be read fails
    /// the whole pass: its references could point anywhere, so nothing may be judged.
    pub fn read(store: &BlockingStore, retry: &RetryPolicy, snapshot: &Snapshot) -> Result<Self> {
        let mut keys = HashSet::new();
        for (rid, family, number) in &snapshot.pointers {
            let key = manifest_key(*rid, family, *number);
            if snapshot.live_regions.contains(rid) {
                for entry in read_files(store, retry, &key)? {
                    keys.insert(entry_key(&entry, &key)?);
                }
            }
            keys.insert(key);
        }
        Ok(LiveSet { keys })
    }

    /// True when `key` must stay.
    pub fn contains(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    /// How many keys are live.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when nothing is live.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// The files the manifest at `key` lists.
fn read_files(
    store: &BlockingStore,
    retry: &RetryPolicy,
    key: &str,
) -> Result<Vec<StoreFileEntry>> {
    let store_error = |source| Error::Store {
        url: store.name().to_owned(),
        source,
    };
    let path = ObjectPath::from(key);
    let size = retry.run(|| store.head(&path)).map_err(store_error)?.size;
    let bytes = retry
        .run(|| store.get_range(&path, 0..size))
        .map_err(store_error)?;
    match read_manifest(Path::new(key), &bytes) {
        Ok(ManifestRead::Valid(decoded)) => Ok(decoded.state.files),
        Ok(ManifestRead::Torn { reason, .. }) => Err(Error::Collector(format!(
            "the current manifest {key} is torn: {reason}"
        ))),
        Err(e) => Err(Error::Collector(format!(
            "the current manifest {key} is damaged: {e}"
        ))),
    }
}
