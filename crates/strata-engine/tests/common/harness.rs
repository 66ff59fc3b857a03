//! Drives the engine and the model with the same operations and compares every read.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata_engine::fs::{FileSystem, MemFs};
use strata_engine::{
    BloomType, Cell, CellType, Compression, DataBlockEncoding, Durability, Engine, EngineOptions,
    FamilyOptions, Get, KeepDeletedCells, Region, RegionSpec, Scan, TimeRange, WalGroupCount,
    LATEST_TIMESTAMP,
};
use strata_runtime::clock::ManualClock;

use super::model::{MCell, Model, ModelRead, Out};

/// The families every randomized test uses: together they cover every bloom type, codec,
/// encoding, version setting, TTL and KEEP_DELETED_CELLS.
pub fn families() -> Vec<FamilyOptions> {
    let mut a = FamilyOptions::new("a");
    a.max_versions = 3;
    a.bloom_type = BloomType::RowCol;
    a.compression = Compression::Lz4;
    a.block_size = 256;
    let mut b = FamilyOptions::new("b");
    b.max_versions = 2;
    b.min_versions = 1;
    b.ttl_seconds = Some(50);
    b.compression = Compression::Zstd;
    b.data_block_encoding = DataBlockEncoding::None;
    b.block_size = 512;
    let mut c = FamilyOptions::new("c");
    c.max_versions = 2;
    c.keep_deleted_cells = KeepDeletedCells::True;
    c.bloom_type = BloomType::None;
    c.compression = Compression::Gz;
    c.block_cache_enabled = false;
    vec![a, b, c]
}

/// [`families`] with the row cache on in each, for the row-cache configuration.
pub fn row_cache_families() -> Vec<FamilyOptions> {
    let mut all = families();
    for f in &mut all {
        f.row_cache = true;
    }
    all
}

/// Distinct (row, read) pairs a row-cache run repeats, so reads hit the cache.
const REPEATED_GETS: usize = 6;

pub struct Harness {
    pub fs: MemFs,
    pub clock: Arc<ManualClock>,
    pub engine: Option<Arc<Engine>>,
    pub region: Option<Arc<Region>>,
    pub model: Model,
    pub rng: StdRng,
    pub seed: u64,
    pub ops: usize,
    /// What the last step did, for failure messages.
    pub last_op: &'static str,
    /// Every family has ROW_CACHE and the engine a small row cache; gets are often repeats.
    pub row_cache: bool,
    /// Recent gets, which a row-cache run asks again.
    recent_gets: Vec<(Vec<u8>, ModelRead)>,
    /// Each (re)open picks a new WAL group count (1 to 4) and segments are small, so the
    /// region's edits move between groups and leftover directories, and segments roll and
    /// are dropped, across crashes.
    pub vary_wal_groups: bool,
    /// The WAL group count of the engine open now.
    pub wal_groups: usize,
    /// The id of the region under test: a restore from a snapshot moves to a new one.
    pub region_id: u64,
    /// Some steps take a snapshot or restore the region from the last one (`snapshots.rs`).
    pub snapshots: bool,
    /// The last snapshot's name and the model as it was then.
    pub saved: Option<(String, Model)>,
}

const ROWS: &[&[u8]] = &[
    b"r0",
    b"r1",
    b"r1\0",
    b"r2",
    b"r3",
    b"r4",
    b"r5",
    b"s",
    b"\xff\xfe",
    b"\x00",
];
const QUALIFIERS: &[&[u8]] = &[b"", b"q", b"q\0", b"x", b"yy"];

impl Harness {
    pub fn new(seed: u64) -> Harness {
        Harness::configured(seed, false, false)
    }

    /// A harness whose families all have the row cache on (see [`Harness::row_cache`]).
    pub fn with_row_cache(seed: u64) -> Harness {
        Harness::configured(seed, true, false)
    }

    /// A harness whose WAL group count changes at every restart (see
    /// [`Harness::vary_wal_groups`]).
    pub fn with_wal_groups(seed: u64) -> Harness {
        Harness::configured(seed, false, true)
    }

    fn configured(seed: u64, row_cache: bool, vary_wal_groups: bool) -> Harness {
        let fs = MemFs::new();
        let clock = Arc::new(ManualClock::new(1_000_000));
        let mut h = Harness {
            fs,
            clock,
            engine: None,
            region: None,
            model: Model::new(&families()),
            rng: StdRng::seed_from_u64(seed),
            seed,
            ops: 0,
            last_op: "",
            row_cache,
            recent_gets: Vec::new(),
            vary_wal_groups,
            wal_groups: 1,
            region_id: 7,
            snapshots: false,
            saved: None,
        };
        h.open();
        h
    }

    pub fn options(&self) -> EngineOptions {
        let mut opts = EngineOptions::new(PathBuf::from("/db"));
        opts.fs = Arc::new(self.fs.clone()) as Arc<dyn FileSystem>;
        opts.clock = Arc::clone(&self.clock) as _;
        opts.background_work = false;
        opts.block_cache_bytes = 64 * 1024; // small, so evictions happen
        opts.compaction.min_files = 2;
        if self.row_cache {
            opts.row_cache_bytes = 16 * 1024; // small, so evictions happen
        }
        if self.vary_wal_groups {
            opts.wal.groups = WalGroupCount::Fixed(self.wal_groups);
            opts.wal.segment_size = 2048; // small, so segments roll and are dropped
        }
        opts
    }

    pub fn open(&mut self) {
        if self.vary_wal_groups {
            self.wal_groups = self.rng.random_range(1..=4);
        }
        let engine = Engine::open(self.options())
            .unwrap_or_else(|e| panic!("seed {}: open: {e}", self.seed));
        self.engine = Some(engine);
        self.open_region();
    }

    /// The families the region under test has.
    pub fn region_families(&self) -> Vec<FamilyOptions> {
        if self.row_cache {
            row_cache_families()
        } else {
            families()
        }
    }

    /// Opens the region under test in the open engine.
    pub fn open_region(&mut self) {
        let region = self
            .engine
            .as_ref()
            .unwrap()
            .open_region(RegionSpec {
                id: self.region_id,
                families: self.region_families(),
            })
            .unwrap_or_else(|e| panic!("seed {}: open region: {e}", self.seed));
        self.region = Some(region);
    }

    pub fn region(&self) -> &Arc<Region> {
        self.region.as_ref().unwrap()
    }

    /// Compacts, and mirrors in the model every compaction that ran as a major one.
    pub fn compact(&mut self, major: bool) {
        let outcomes = self
            .region()
            .compact(major)
            .unwrap_or_else(|e| panic!("seed {}: compact: {e}", self.seed));
        let now = self.now();
        for (family, outcome) in outcomes {
            if outcome.major {
                self.model.major_compact(&family, now);
            }
        }
    }

    /// Closes cleanly (flushing everything) and reopens.
    pub fn restart_clean(&mut self) {
        self.region = None;
        self.engine.take().unwrap().close().unwrap();
        self.model.flush();
        self.open();
    }

    /// Simulates `kill -9`: the engine is abandoned and a new process sees what the OS had.
    pub fn restart_after_process_crash(&mut self) {
        let crashed = self.fs.crash_process();
        self.region = None;
        self.engine = None;
        self.fs = crashed;
        self.open();
    }

    fn now(&self) -> i64 {
        use strata_runtime::clock::Clock;
        self.clock.now_millis()
    }

    fn random_ts(&mut self) -> i64 {
        if self.rng.random_bool(0.2) {
            LATEST_TIMESTAMP
        } else {
            self.now() - self.rng.random_range(0..80_000)
        }
    }

    fn random_cell(&mut self) -> Cell {
        let row = ROWS[self.rng.random_range(0..ROWS.len())];
        let family = ["a", "b", "c"][self.rng.random_range(0..3)];
        let qualifier = QUALIFIERS[self.rng.random_range(0..QUALIFIERS.len())];
        // Few distinct timestamps, so markers and overwrites hit existing versions.
        let ts = if self.rng.random_bool(0.5) {
            self.now() - 1000 * self.rng.random_range(0..6)
        } else {
            self.random_ts()
        };
        let kind = match self.rng.random_range(0..10) {
            0 => CellType::Delete,
            1 => CellType::DeleteColumn,
            2 => CellType::DeleteFamily,
            3 => CellType::DeleteFamilyVersion,
            _ => CellType::Put,
        };
        let value_len = if self.rng.random_bool(0.05) {
            3000
        } else {
            self.rng.random_range(0..12)
        };
        let value: Vec<u8> = (0..value_len).map(|_| self.rng.random()).collect();
        if kind == CellType::Put {
            Cell::put(row.to_vec(), family, qualifier.to_vec(), ts, value)
        } else {
            Cell::delete(row.to_vec(), family, qualifier.to_vec(), ts, kind)
        }
    }

    pub fn random_mutation(&mut self) {
        let n = if self.rng.random_bool(0.2) {
            self.rng.random_range(2..5)
        } else {
            1
        };
        let cells: Vec<Cell> = (0..n).map(|_| self.random_cell()).collect();
        let now = self.now();
        let model_cells: Vec<MCell> = cells
            .iter()
            .map(|c| MCell {
                row: c.row.to_vec(),
                family: c.family.to_vec(),
                qualifier: c.qualifier.to_vec(),
                ts: if c.timestamp == LATEST_TIMESTAMP {
                    now
                } else {
                    c.timestamp
                },
                kind: c.cell_type,
                seq: 0,
                value: c.value.to_vec(),
                flushed: false,
            })
            .collect();
        let durability = if self.rng.random_bool(0.5) {
            Durability::SyncWal
        } else {
            Durability::FsyncWal
        };
        self.region()
            .mutate(cells, durability)
            .unwrap_or_else(|e| panic!("seed {}: mutate: {e}", self.seed));
        self.model.apply(model_cells);
    }

    fn random_read(&mut self) -> ModelRead {
        let families = match self.rng.random_range(0..4) {
            0 | 1 => None,
            2 => {
                let f = ["a", "b", "c"][self.rng.random_range(0..3)];
                Some(BTreeMap::from([(f.as_bytes().to_vec(), None)]))
            }
            _ => {
                let f = ["a", "b", "c"][self.rng.random_range(0..3)];
                let qs: Vec<Vec<u8>> = (0..self.rng.random_range(1..3))
                    .map(|_| QUALIFIERS[self.rng.random_range(0..QUALIFIERS.len())].to_vec())
                    .collect();
                Some(BTreeMap::from([(f.as_bytes().to_vec(), Some(qs))]))
            }
        };
        let (min_ts, max_ts) = if self.rng.random_bool(0.7) {
            (0, i64::MAX)
        } else {
            let a = self.now() - self.rng.random_range(0..8000);
            (a, a + self.rng.random_range(1..8000))
        };
        ModelRead {
            families,
            versions: self.rng.random_range(1..5),
            min_ts,
            max_ts,
        }
    }

    fn to_get(row: &[u8], r: &ModelRead) -> Get {
        let mut get = Get::new(row.to_vec())
            .versions(r.versions)
            .time_range(TimeRange::new(r.min_ts, r.max_ts));
        if let Some(fams) = &r.families {
            for (f, qs) in fams {
                get = match qs {
                    None => get.family(f.clone()),
                    Some(qs) => qs.iter().fold(get, |g, q| g.column(f.clone(), q.clone())),
                };
            }
        }
        get
    }

    /// A random row and read; in a row-cache run often one asked recently.
    fn random_get(&mut self) -> (Vec<u8>, ModelRead) {
        if self.row_cache && !self.recent_gets.is_empty() && self.rng.random_bool(0.6) {
            let i = self.rng.random_range(0..self.recent_gets.len());
            return self.recent_gets[i].clone();
        }
        let row = ROWS[self.rng.random_range(0..ROWS.len())].to_vec();
        let read = self.random_read();
        if self.row_cache {
            if self.recent_gets.len() == REPEATED_GETS {
                let i = self.rng.random_range(0..REPEATED_GETS);
                self.recent_gets.swap_remove(i);
            }
            self.recent_gets.push((row.clone(), read.clone()));
        }
        (row, read)
    }

    pub fn check_random_get(&mut self) {
        let (row, r) = self.random_get();
        self.check_get(&row, &r);
    }

    /// In a row-cache run, asks a recent get again: after a flush, compaction or clock
    /// move, which leave the rows alone but may change what a cached answer should be.
    fn check_recent_get(&mut self) {
        if self.row_cache && !self.recent_gets.is_empty() {
            let i = self.rng.random_range(0..self.recent_gets.len());
            let (row, r) = self.recent_gets[i].clone();
            self.check_get(&row, &r);
        }
    }

    fn check_get(&mut self, row: &[u8], r: &ModelRead) {
        let expected = self.model.get(row, r, self.now());
        let got = self
            .region()
            .get(&Self::to_get(row, r))
            .unwrap_or_else(|e| panic!("seed {}: get: {e}", self.seed));
        let got: Vec<Out> = got.map(|res| flatten(&res.cells)).unwrap_or_default();
        if got != expected {
            self.dump(&[row.to_vec()]);
            panic!(
                "seed {} op {}: get {:?} {:?}\n got: {:?}\n expected: {:?}",
                self.seed,
                self.ops,
                row,
                r,
                brief(&[got]),
                brief(&[expected])
            );
        }
    }

    pub fn check_random_scan(&mut self) {
        let pick = |rng: &mut StdRng| {
            if rng.random_bool(0.3) {
                Vec::new()
            } else {
                ROWS[rng.random_range(0..ROWS.len())].to_vec()
            }
        };
        let (start, stop) = (pick(&mut self.rng), pick(&mut self.rng));
        let reversed = self.rng.random_bool(0.4);
        let limit = if self.rng.random_bool(0.3) {
            self.rng.random_range(1..4)
        } else {
            usize::MAX
        };
        let r = self.random_read();
        let expected = self
            .model
            .scan(&start, &stop, reversed, limit, &r, self.now());
        let g = Self::to_get(b"unused", &r);
        let mut scan = Scan::new()
            .range(start.clone(), stop.clone())
            .reversed(reversed)
            .versions(r.versions)
            .time_range(g.time_range);
        scan.columns = g.columns;
        if limit != usize::MAX {
            scan = scan.limit(limit);
        }
        let got: Vec<Vec<Out>> = self
            .region()
            .scan(&scan)
            .unwrap()
            .map(|row| {
                flatten(
                    &row.unwrap_or_else(|e| panic!("seed {}: scan: {e}", self.seed))
                        .cells,
                )
            })
            .collect();
        if got != expected {
            let rows: Vec<Vec<u8>> = got
                .iter()
                .chain(expected.iter())
                .filter_map(|cells| cells.first().map(|c| c.0.clone()))
                .collect();
            self.dump(&rows);
            panic!("seed {} op {}: scan {:?}..{:?} rev={reversed} limit={limit} {:?}\n got: {:?}\n expected: {:?}", self.seed, self.ops, start, stop, r, brief(&got), brief(&expected));
        }
    }

    /// Prints the model's cells of `rows` (for diagnosing a mismatch).
    pub fn dump(&self, rows: &[Vec<u8>]) {
        for c in self.model.cells.iter().filter(|c| rows.contains(&c.row)) {
            eprintln!(
                "model cell: row={:?} fam={:?} q={:?} ts={} {:?} seq={} vlen={}",
                c.row,
                c.family,
                c.qualifier,
                c.ts,
                c.kind,
                c.seq,
                c.value.len()
            );
        }
    }

    /// One random step of the workload.
    pub fn step(&mut self) {
        self.ops += 1;
        if self.snapshots && self.rng.random_bool(0.04) {
            self.snapshot_step();
            self.check_recent_get();
            return;
        }
        match self.rng.random_range(0..100) {
            0..=44 => {
                self.last_op = "mutate";
                self.random_mutation()
            }
            45..=69 => {
                self.last_op = "get";
                self.check_random_get()
            }
            70..=84 => {
                self.last_op = "scan";
                self.check_random_scan()
            }
            85..=89 => {
                self.last_op = "flush";
                self.region().flush().unwrap();
                self.model.flush();
            }
            90..=92 => {
                self.last_op = "minor compaction";
                self.compact(false);
            }
            93..=94 => {
                self.last_op = "major compaction";
                self.region().flush().unwrap();
                self.model.flush();
                self.compact(true);
            }
            95..=96 => {
                self.last_op = "clock";
                self.clock.advance(self.rng.random_range(1..20_000))
            }
            97 => {
                self.last_op = "clean restart";
                self.restart_clean()
            }
            _ => {
                self.last_op = "crash restart";
                self.restart_after_process_crash()
            }
        }
        if !matches!(self.last_op, "mutate" | "get" | "scan") {
            self.check_recent_get();
        }
    }
}

/// Rows of cells without values, for readable failure messages.
/// A cell's coordinates without its value.
pub type Coordinates = (Vec<u8>, Vec<u8>, Vec<u8>, i64);

pub fn brief(rows: &[Vec<Out>]) -> Vec<Vec<Coordinates>> {
    rows.iter()
        .map(|cells| {
            cells
                .iter()
                .map(|c| (c.0.clone(), c.1.clone(), c.2.clone(), c.3))
                .collect()
        })
        .collect()
}

pub fn flatten(cells: &[Cell]) -> Vec<Out> {
    cells
        .iter()
        .map(|c| {
            (
                c.row.to_vec(),
                c.family.to_vec(),
                c.qualifier.to_vec(),
                c.timestamp,
                c.value.to_vec(),
            )
        })
        .collect()
}
