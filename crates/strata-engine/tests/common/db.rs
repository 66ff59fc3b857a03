//! An engine with one region on a given filesystem, reopened at will.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use strata_engine::fs::FileSystem;
use strata_engine::{Engine, EngineOptions, FamilyOptions, Region, RegionSpec, Result};

pub const REGION: u64 = 1;

pub struct Db {
    pub options: EngineOptions,
    pub families: Vec<FamilyOptions>,
    pub engine: Option<Arc<Engine>>,
    pub region: Option<Arc<Region>>,
}

/// Options for tests: everything under `/db` on `fs`, background work off, small caches.
pub fn test_options(fs: Arc<dyn FileSystem>) -> EngineOptions {
    let mut o = EngineOptions::new(PathBuf::from("/db"));
    o.fs = fs;
    o.background_work = false;
    o.block_cache_bytes = 32 * 1024;
    o.compaction.min_files = 2;
    o
}

impl Db {
    pub fn open(options: EngineOptions, families: Vec<FamilyOptions>) -> Result<Db> {
        let mut db = Db {
            options,
            families,
            engine: None,
            region: None,
        };
        db.reopen()?;
        Ok(db)
    }

    /// Opens engine and region with the current options (after `crash` or `close`).
    pub fn reopen(&mut self) -> Result<()> {
        self.abandon();
        let engine = Engine::open(self.options.clone())?;
        let region = engine.open_region(RegionSpec {
            id: REGION,
            families: self.families.clone(),
        })?;
        self.engine = Some(engine);
        self.region = Some(region);
        Ok(())
    }

    /// Drops the engine without closing it (a crash as far as the engine is concerned).
    pub fn abandon(&mut self) {
        self.region = None;
        self.engine = None;
    }

    /// Closes cleanly.
    pub fn close(&mut self) -> Result<()> {
        self.region = None;
        match self.engine.take() {
            Some(e) => e.close(),
            None => Ok(()),
        }
    }

    pub fn region(&self) -> &Arc<Region> {
        self.region.as_ref().expect("region open")
    }

    pub fn engine(&self) -> &Arc<Engine> {
        self.engine.as_ref().expect("engine open")
    }

    /// Live SSTables over all families.
    pub fn file_count(&self) -> usize {
        self.region().stats().file_count as usize
    }
}
