//! Manifest pointers: which manifest of a store is current when its files live on shared
//! storage (cluster mode, `docs/rfcs/0007-shared-storage-engine.md`).
//!
//! On a local disk the newest `MANIFEST-<n>` is the current one, and older files are
//! removed by the next commit. That rule cannot hold on an object store shared by several
//! servers: a server that lost a region (a paused "zombie") may still write a manifest
//! there, and nothing may be deleted except by the garbage collector. So in shared mode a
//! manifest file is only a candidate; it becomes the store's state when its number is
//! committed as the store's *pointer*, which cluster mode keeps in etcd and guards by the
//! region's epoch. A zombie's commit is refused there, and its files are garbage.

use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;

use crate::error::{Error, Result};

/// Where the current manifest number of each store is kept.
pub trait ManifestPointers: Send + Sync + Debug {
    /// The committed manifest number of the store of `family` in `region`; `None` when
    /// no manifest was ever committed for it.
    fn load(&self, region: u64, family: &[u8]) -> Result<Option<u64>>;

    /// Makes manifest `number` the store's current one. Fails when this process may no
    /// longer change the region (it lost ownership); then nothing was committed, or the
    /// outcome is unknown, and the caller treats the store as needing a reopen.
    fn commit(&self, region: u64, family: &[u8], number: u64) -> Result<()>;

    /// A short tag unique to this process's tenure of its regions (`[a-z0-9]` only). It
    /// goes into the names of the SSTables the process writes, so two processes that both
    /// believe they own a region (a zombie and its successor) never write the same name.
    fn writer_tag(&self) -> String;
}

/// The pointer of one store: the seam plus the store's identity.
#[derive(Debug, Clone)]
pub struct StorePointer {
    pub pointers: Arc<dyn ManifestPointers>,
    pub region: u64,
    pub family: Bytes,
}

impl StorePointer {
    pub(crate) fn load(&self) -> Result<Option<u64>> {
        self.pointers.load(self.region, &self.family)
    }

    pub(crate) fn commit(&self, number: u64) -> Result<()> {
        self.pointers.commit(self.region, &self.family, number)
    }
}

/// Pointers held in memory, shared by the writers of a test (or of a single process on an
/// object store with no coordinator; not durable: a restart forgets them).
#[derive(Debug, Default)]
pub struct InMemoryPointers {
    pointers: Mutex<HashMap<(u64, Bytes), u64>>,
    /// (region, writer tag) pairs whose commits are refused, as a lost epoch would be.
    refused: Mutex<HashSet<(u64, String)>>,
}

impl InMemoryPointers {
    /// An empty set of pointers.
    pub fn new() -> Arc<Self> {
        Arc::new(InMemoryPointers::default())
    }

    /// The view of the process whose writer tag is `tag`.
    pub fn for_writer(self: &Arc<Self>, tag: &str) -> Arc<dyn ManifestPointers> {
        Arc::new(InMemoryWriter {
            pointers: Arc::clone(self),
            tag: tag.to_string(),
        })
    }

    /// From now on, commits for `region` by the writer `tag` fail (the region moved away).
    pub fn refuse(&self, region: u64, tag: &str) {
        self.refused.lock().insert((region, tag.to_string()));
    }
}

/// One writer's view of [`InMemoryPointers`].
#[derive(Debug)]
struct InMemoryWriter {
    pointers: Arc<InMemoryPointers>,
    tag: String,
}

impl ManifestPointers for InMemoryWriter {
    fn load(&self, region: u64, family: &[u8]) -> Result<Option<u64>> {
        let key = (region, Bytes::copy_from_slice(family));
        Ok(self.pointers.pointers.lock().get(&key).copied())
    }

    fn commit(&self, region: u64, family: &[u8], number: u64) -> Result<()> {
        if self
            .pointers
            .refused
            .lock()
            .contains(&(region, self.tag.clone()))
        {
            return Err(Error::WalFenced(format!(
                "region {region} moved away from writer {}: manifest {number} not committed",
                self.tag
            )));
        }
        let key = (region, Bytes::copy_from_slice(family));
        self.pointers.pointers.lock().insert(key, number);
        Ok(())
    }

    fn writer_tag(&self) -> String {
        self.tag.clone()
    }
}
