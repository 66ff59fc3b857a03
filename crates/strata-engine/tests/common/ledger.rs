//! A workload whose surviving state can be checked after a crash without knowing which of
//! the non-durable writes made it.
//!
//! Every mutation `id` writes at timestamp `TS_BASE + id` (so later mutations never hide
//! behind earlier ones), puts the value token `m<id>` into each of its put cells, and also
//! writes one "log" cell `(LOG_ROW, a, <id>)` that no delete ever touches. After a crash the
//! log row says exactly which mutations survived; from that set a tiny model computes the
//! only acceptable visible state. A mutation that survived only in part (some cells or
//! markers applied, others not), a lost acknowledged write, a resurrected deleted cell and a
//! garbage value all make the comparison fail.

#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap, HashSet};

use bytes::Bytes;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata_engine::{
    BloomType, Cell, CellType, Compression, DataBlockEncoding, Durability, FamilyOptions, Region,
    Result, Scan,
};

use super::harness::flatten;
use super::model::Out;

/// Timestamp of mutation 0.
pub const TS_BASE: i64 = 1_000_000;
/// The row holding one log cell per mutation; sorts after every data row.
pub const LOG_ROW: &[u8] = b"~log";
/// Versions kept and read: more than any test writes, so nothing is dropped for age.
pub const VERSIONS: u32 = 1_000_000;
const ROWS: usize = 12;
const QUALIFIERS: usize = 4;
const FAMILIES: [&str; 3] = ["a", "b", "c"];

/// The ledger's families: every version kept, various codecs, blooms and caching.
pub fn ledger_families() -> Vec<FamilyOptions> {
    let mut a = FamilyOptions::new("a");
    a.max_versions = VERSIONS;
    a.compression = Compression::Lz4;
    a.block_size = 512;
    let mut b = FamilyOptions::new("b");
    b.max_versions = VERSIONS;
    b.compression = Compression::Zstd;
    b.bloom_type = BloomType::RowCol;
    b.data_block_encoding = DataBlockEncoding::None;
    b.block_size = 1024;
    let mut c = FamilyOptions::new("c");
    c.max_versions = VERSIONS;
    c.bloom_type = BloomType::None;
    c.block_cache_enabled = false;
    c.block_size = 256;
    vec![a, b, c]
}

/// One mutation the test tried.
#[derive(Debug, Clone)]
pub struct Mutation {
    pub id: u64,
    pub cells: Vec<Cell>,
    pub durability: Durability,
    /// `mutate` returned Ok.
    pub acked: bool,
    /// Must survive a process crash.
    pub durable_process: bool,
    /// Must survive a power loss.
    pub durable_power: bool,
    /// Visible now (false once a crash lost it; it must never come back).
    pub alive: bool,
    /// The sequence id `mutate` returned.
    pub seq: Option<u64>,
}

/// How the process ended before a reopen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashKind {
    /// `kill -9`: everything handed to the OS survives.
    Process,
    /// Power cut: only synced bytes (and maybe torn tails) survive.
    PowerLoss,
}

pub struct Ledger {
    pub muts: Vec<Mutation>,
    pub rng: StdRng,
    pub seed: u64,
    /// Coordinates (row, family, qualifier, ts) of every put written so far, as delete
    /// targets.
    puts: Vec<(Bytes, &'static str, Bytes, i64)>,
}

impl Ledger {
    pub fn new(seed: u64) -> Ledger {
        Ledger {
            muts: Vec::new(),
            rng: StdRng::seed_from_u64(seed),
            seed,
            puts: Vec::new(),
        }
    }

    /// The id and cells of the next mutation (not yet recorded).
    pub fn next_cells(&mut self) -> (u64, Vec<Cell>) {
        self.next_cells_in(&FAMILIES)
    }

    /// The next mutation, touching only `families` (besides the log cell in family `a`).
    pub fn next_cells_in(&mut self, families: &[&'static str]) -> (u64, Vec<Cell>) {
        let id = self.muts.len() as u64;
        let ts = TS_BASE + id as i64;
        let token = format!("m{id:06}");
        let n = self.rng.random_range(1..=4);
        let mut cells: Vec<Cell> = Vec::new();
        let mut seen = HashSet::new();
        for _ in 0..n {
            let row = Bytes::from(format!("r{:02}", self.rng.random_range(0..ROWS)));
            let family = families[self.rng.random_range(0..families.len())];
            let qualifier = Bytes::from(format!("q{}", self.rng.random_range(0..QUALIFIERS)));
            let cell = match self.rng.random_range(0..20) {
                0..=12 => {
                    let pad = if self.rng.random_bool(0.03) {
                        2000
                    } else {
                        self.rng.random_range(0..40)
                    };
                    let value = format!("{token}:{}", "x".repeat(pad));
                    Cell::put(row, family, qualifier, ts, value)
                }
                13..=14 => match self.pick_put(families) {
                    Some((r, f, q, t)) => Cell::delete(r, f, q, t, CellType::Delete),
                    None => continue,
                },
                15..=16 => {
                    let t = ts - self.rng.random_range(0..30);
                    Cell::delete(row, family, qualifier, t, CellType::DeleteColumn)
                }
                17 => {
                    let t = ts - self.rng.random_range(0..60);
                    Cell::delete(row, family, Bytes::new(), t, CellType::DeleteFamily)
                }
                _ => match self.pick_put(families) {
                    Some((r, f, _, t)) => {
                        Cell::delete(r, f, Bytes::new(), t, CellType::DeleteFamilyVersion)
                    }
                    None => continue,
                },
            };
            let key = (
                cell.row.clone(),
                cell.family.clone(),
                cell.qualifier.clone(),
                cell.timestamp,
                cell.cell_type,
            );
            if seen.insert(key) {
                cells.push(cell);
            }
        }
        cells.push(Cell::put(
            LOG_ROW.to_vec(),
            "a",
            format!("{id:08}"),
            ts,
            token.clone(),
        ));
        (id, cells)
    }

    fn pick_put(&mut self, families: &[&str]) -> Option<(Bytes, &'static str, Bytes, i64)> {
        // Mostly recent puts, so deletes hit cells that are still visible.
        let n = self.puts.len();
        let back = self.rng.random_range(0..n.clamp(1, 40));
        let put = self.puts.get(n.checked_sub(1 + back)?)?;
        families.contains(&put.1).then(|| put.clone())
    }

    /// Records the outcome of `mutate` for the cells `next_cells` returned.
    pub fn record(&mut self, id: u64, cells: Vec<Cell>, durability: Durability, acked: bool) {
        assert_eq!(id, self.muts.len() as u64);
        for c in cells.iter().filter(|c| c.cell_type == CellType::Put) {
            if c.row.as_ref() != LOG_ROW {
                let family = FAMILIES
                    .iter()
                    .find(|f| f.as_bytes() == c.family.as_ref())
                    .copied()
                    .unwrap();
                self.puts
                    .push((c.row.clone(), family, c.qualifier.clone(), c.timestamp));
            }
        }
        let durable_process = acked && durability >= Durability::SyncWal;
        self.muts.push(Mutation {
            id,
            cells,
            durability,
            acked,
            durable_process,
            durable_power: acked && durability == Durability::FsyncWal,
            alive: true,
            seq: None,
        });
    }

    /// Writes one mutation through `region` and records it. Returns the mutate result.
    ///
    /// A `SkipWal` write stays in family `a`: it is all-or-nothing only within one family
    /// (see `Durability::SkipWal`).
    pub fn write(&mut self, region: &Region, durability: Durability) -> Result<u64> {
        let (id, cells) = if durability == Durability::SkipWal {
            self.next_cells_in(&["a"])
        } else {
            self.next_cells()
        };
        let result = region.mutate(cells.clone(), durability);
        self.record(id, cells, durability, result.is_ok());
        if let Ok(seq) = &result {
            self.muts[id as usize].seq = Some(*seq);
        }
        result
    }

    /// A successful flush made every acknowledged write before it durable.
    pub fn flushed(&mut self) {
        for m in self.muts.iter_mut().filter(|m| m.acked && m.alive) {
            m.durable_process = true;
            m.durable_power = true;
        }
    }

    /// The only state a reader may see when exactly the mutations `present` applied.
    pub fn expected(&self, present: impl Fn(&Mutation) -> bool) -> Vec<Out> {
        let live: Vec<&Mutation> = self.muts.iter().filter(|m| present(m)).collect();
        let mut deletes: HashMap<(&[u8], &[u8]), Vec<&Cell>> = HashMap::new();
        for c in live.iter().flat_map(|m| &m.cells) {
            if c.cell_type.is_delete() {
                deletes
                    .entry((c.row.as_ref(), c.family.as_ref()))
                    .or_default()
                    .push(c);
            }
        }
        let mut out: Vec<Out> = live
            .iter()
            .flat_map(|m| &m.cells)
            .filter(|p| p.cell_type == CellType::Put)
            .filter(|p| {
                deletes
                    .get(&(p.row.as_ref(), p.family.as_ref()))
                    .is_none_or(|ds| !ds.iter().any(|d| covers(d, p)))
            })
            .map(|p| {
                (
                    p.row.to_vec(),
                    p.family.to_vec(),
                    p.qualifier.to_vec(),
                    p.timestamp,
                    p.value.to_vec(),
                )
            })
            .collect();
        out.sort();
        out
    }

    /// Asserts that the region shows exactly the mutations still alive (use while no write
    /// is in doubt: after a crash check, or when every write since was acknowledged).
    pub fn check_live(&self, region: &Region, context: &str) {
        let got = read_all(region).unwrap_or_else(|e| panic!("seed {}: {context}: {e}", self.seed));
        let expected = self.expected(|m| m.alive && m.acked);
        self.compare(&got, &expected, context);
    }

    /// Asserts that a reverse scan and per-row gets agree with the forward scan.
    pub fn check_read_paths(&self, region: &Region, context: &str) {
        let forward = read_all(region).unwrap();
        let mut reversed: Vec<Out> = region
            .scan(&Scan::new().reversed(true).versions(VERSIONS))
            .unwrap()
            .flat_map(|r| flatten(&r.unwrap().cells))
            .collect();
        reversed.sort();
        assert_eq!(
            forward, reversed,
            "seed {}: {context}: reverse scan",
            self.seed
        );
        for row in 0..ROWS {
            let row = format!("r{row:02}");
            let get = strata_engine::Get::new(row.clone()).versions(VERSIONS);
            let mut got = region
                .get(&get)
                .unwrap()
                .map(|r| flatten(&r.cells))
                .unwrap_or_default();
            got.sort();
            let want: Vec<Out> = forward
                .iter()
                .filter(|c| c.0 == row.as_bytes())
                .cloned()
                .collect();
            assert_eq!(got, want, "seed {}: {context}: get {row}", self.seed);
        }
    }

    /// After a crash and reopen: works out which mutations survived from the log row and
    /// checks durability, all-or-nothing and that lost writes stay lost. Then updates what
    /// later crashes may lose.
    pub fn check_after_crash(&mut self, region: &Region, kind: CrashKind, context: &str) {
        let got = read_all(region).unwrap_or_else(|e| panic!("seed {}: {context}: {e}", self.seed));
        let mut survivors = BTreeSet::new();
        for cell in got.iter().filter(|c| c.0 == LOG_ROW) {
            let id: u64 = std::str::from_utf8(&cell.2)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("seed {}: {context}: bad log cell {cell:?}", self.seed));
            let m = self.muts.get(id as usize).unwrap_or_else(|| {
                panic!(
                    "seed {}: {context}: log of unknown mutation {id}",
                    self.seed
                )
            });
            assert!(
                m.alive,
                "seed {}: {context}: mutation {id} was lost in an earlier crash and came back",
                self.seed
            );
            survivors.insert(id);
        }
        for m in &self.muts {
            let required = m.alive
                && match kind {
                    CrashKind::Process => m.durable_process || m.durable_power,
                    CrashKind::PowerLoss => m.durable_power,
                };
            assert!(
                !required || survivors.contains(&m.id),
                "seed {}: {context}: {kind:?} lost mutation {} ({:?}, acked {}) that had to \
                 survive: {:?}",
                self.seed,
                m.id,
                m.durability,
                m.acked,
                m.cells
            );
        }
        for m in &mut self.muts {
            m.alive = survivors.contains(&m.id);
            if m.alive {
                // A survivor of a failed write is now as real as an acknowledged one.
                m.acked = true;
                m.durable_process = true;
                if kind == CrashKind::PowerLoss {
                    // What a power loss left is on the new disk's stable storage.
                    m.durable_power = true;
                }
            }
        }
        let expected = self.expected(|m| m.alive);
        self.compare(&got, &expected, context);
    }

    fn compare(&self, got: &[Out], expected: &[Out], context: &str) {
        if got == expected {
            return;
        }
        let got_set: BTreeSet<&Out> = got.iter().collect();
        let exp_set: BTreeSet<&Out> = expected.iter().collect();
        let show = |c: &&Out| {
            format!(
                "({} {} {} ts={} {:.12})",
                String::from_utf8_lossy(&c.0),
                String::from_utf8_lossy(&c.1),
                String::from_utf8_lossy(&c.2),
                c.3,
                String::from_utf8_lossy(&c.4)
            )
        };
        let extra: Vec<String> = got_set.difference(&exp_set).take(10).map(show).collect();
        let missing: Vec<String> = exp_set.difference(&got_set).take(10).map(show).collect();
        let involved: BTreeSet<String> = got_set
            .symmetric_difference(&exp_set)
            .filter_map(|c| {
                let token = String::from_utf8_lossy(&c.4);
                let id: usize = token.get(1..7)?.parse().ok()?;
                let m = self.muts.get(id)?;
                Some(format!(
                    "m{id}: {:?} acked={} alive={}",
                    m.durability, m.acked, m.alive
                ))
            })
            .collect();
        panic!(
            "seed {}: {context}: state differs from the model\n unexpected: {extra:?}\n \
             missing: {missing:?}\n mutations: {involved:?}",
            self.seed
        );
    }
}

/// True if delete marker `d` hides put `p` (same row and family assumed by the caller too).
pub fn covers(d: &Cell, p: &Cell) -> bool {
    d.row == p.row
        && d.family == p.family
        && match d.cell_type {
            CellType::Put => false,
            CellType::Delete => d.qualifier == p.qualifier && d.timestamp == p.timestamp,
            CellType::DeleteColumn => d.qualifier == p.qualifier && p.timestamp <= d.timestamp,
            CellType::DeleteFamily => p.timestamp <= d.timestamp,
            CellType::DeleteFamilyVersion => p.timestamp == d.timestamp,
        }
}

/// Every visible version of every cell of the region, sorted.
pub fn read_all(region: &Region) -> Result<Vec<Out>> {
    let mut out = Vec::new();
    for row in region.scan(&Scan::new().versions(VERSIONS))? {
        out.extend(flatten(&row?.cells));
    }
    out.sort();
    Ok(out)
}
