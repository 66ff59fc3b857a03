//! An in-memory target over a `BTreeMap`: the harness's self-test, and a ceiling that shows
//! how much of a measured latency is the harness itself.

use std::collections::BTreeMap;
use std::ops::Bound;

use parking_lot::RwLock;

use crate::error::{BenchError, BenchResult};
use crate::target::{Backend, KvTarget, OpenSpec};

/// Opens `MemoryTarget`s. The data lives only as long as the target, so a reopen starts
/// empty unless the same map is handed back; the backend keeps it for that reason.
#[derive(Default)]
pub struct MemoryBackend {
    store: std::sync::Arc<RwLock<BTreeMap<Vec<u8>, Vec<u8>>>>,
}

impl MemoryBackend {
    /// A backend with an empty store.
    pub fn new() -> Self {
        MemoryBackend::default()
    }

    /// Number of keys stored now.
    pub fn len(&self) -> usize {
        self.store.read().len()
    }

    /// True if nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.store.read().is_empty()
    }
}

impl Backend for MemoryBackend {
    fn name(&self) -> String {
        "memory".into()
    }

    fn open(&self, spec: &OpenSpec) -> BenchResult<Box<dyn KvTarget>> {
        // The harness empties the directory to start a fresh database; a marker file tells
        // a reopen of the same database from a fresh one.
        let marker = spec.dir.join("MEMORY-TARGET");
        if !marker.exists() {
            self.store.write().clear();
            std::fs::write(&marker, b"").map_err(|e| BenchError::io(&marker, e))?;
        }
        Ok(Box::new(MemoryTarget {
            store: self.store.clone(),
        }))
    }
}

/// A `BTreeMap` behind a lock.
pub struct MemoryTarget {
    store: std::sync::Arc<RwLock<BTreeMap<Vec<u8>, Vec<u8>>>>,
}

impl KvTarget for MemoryTarget {
    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()> {
        self.store.write().insert(key.to_vec(), value.to_vec());
        Ok(())
    }

    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>> {
        Ok(self.store.read().get(key).map(Vec::len))
    }

    fn scan(&self, start: &[u8], n: usize) -> BenchResult<usize> {
        let store = self.store.read();
        let range = store.range::<[u8], _>((Bound::Included(start), Bound::Unbounded));
        Ok(range.take(n).count())
    }

    fn flush(&self) -> BenchResult<()> {
        Ok(())
    }

    fn close(self: Box<Self>) -> BenchResult<()> {
        Ok(())
    }
}
