//! Whole-table tests. Tables are built into memory (a `Vec` behind the fs traits) so that
//! corruption tests can damage bytes cheaply; `roundtrip` also covers the real `LocalFs`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{CachePolicy, TableBuilder, TableMeta, TableOptions, TableReader};
use crate::cache::BlockCache;
use crate::cell::CellType;
use crate::error::Result;
use crate::fs::{RandomAccessFile, WritableFile};
use crate::iter::KvIter;
use crate::key::make_key;

mod corruption;
mod golden;
mod l2;
mod roundtrip;

pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// A writable file appending into a shared vector.
pub struct VecWriter(pub Arc<Mutex<Vec<u8>>>, pub bool);

impl WritableFile for VecWriter {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        self.1 = true;
        Ok(())
    }
    fn len(&self) -> u64 {
        self.0.lock().unwrap().len() as u64
    }
}

/// A read-only file over a vector.
pub struct VecFile(pub Vec<u8>);

impl RandomAccessFile for VecFile {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let start = offset as usize;
        Ok(self.0[start..start + len].to_vec())
    }
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

pub fn path() -> PathBuf {
    PathBuf::from("/strata/t1/cf/000042.sst")
}

/// Random cells across a few hundred rows, with all cell types.
pub fn random_model(rng: &mut SmallRng, n: usize) -> Model {
    let types = [
        CellType::Put,
        CellType::Put,
        CellType::Put,
        CellType::Delete,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
        CellType::DeleteFamilyVersion,
    ];
    let mut model = Model::new();
    while model.len() < n {
        let row = format!("row-{:05}", rng.random_range(0..(n as u32 / 3 + 1)));
        let t = types[rng.random_range(0..types.len())];
        let qual = if t.is_family_marker() {
            String::new()
        } else {
            format!("q{}", rng.random_range(0..4u32))
        };
        let ts = rng.random_range(0..1_000_000);
        let key = make_key(
            row.as_bytes(),
            qual.as_bytes(),
            ts,
            t,
            rng.random_range(1..99),
        );
        let len = rng.random_range(0..40);
        let value: Vec<u8> = (0..len).map(|i| b'a' + (i % 7) as u8).collect();
        model.insert(key, value);
    }
    model
}

/// Builds a table holding `model`; returns its bytes and the builder's meta.
pub fn build(model: &Model, opts: TableOptions) -> (Vec<u8>, TableMeta) {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let mut b = TableBuilder::new(Box::new(VecWriter(buf.clone(), false)), path(), opts);
    for (k, v) in model {
        b.add(k, v).unwrap();
    }
    let meta = b.finish().unwrap();
    let bytes = buf.lock().unwrap().clone();
    (bytes, meta)
}

pub fn open(bytes: Vec<u8>, cache: Option<Arc<BlockCache>>) -> Result<Arc<TableReader>> {
    TableReader::open(
        Arc::new(VecFile(bytes)),
        path(),
        cache,
        CachePolicy::default(),
    )
}

/// Every entry in order, through the `KvIter` interface.
pub fn scan(iter: &mut dyn KvIter) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    iter.seek_to_first()?;
    let mut out = Vec::new();
    while iter.valid() {
        out.push((iter.key().to_vec(), iter.value().to_vec()));
        iter.next()?;
    }
    Ok(out)
}

pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}
