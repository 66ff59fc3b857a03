//! Runs the requested phases against one system: opens, reopens and destroys its database
//! between phases the way db_bench does.

use std::path::{Path, PathBuf};

use crate::config::{BenchArgs, Workload};
use crate::error::{BenchError, BenchResult};
use crate::phase::{derive_seed, run_phase};
use crate::stats::PhaseResult;
use crate::target::{Backend, CacheMode, KvTarget, OpenSpec};

/// The database directory of `backend` under `--db`.
pub fn db_dir(args: &BenchArgs, backend: &dyn Backend) -> PathBuf {
    args.db.join(backend.name())
}

/// An open database plus what is needed to reopen it differently.
struct Session<'a> {
    backend: &'a dyn Backend,
    spec: OpenSpec,
    target: Option<Box<dyn KvTarget>>,
}

impl<'a> Session<'a> {
    fn open(backend: &'a dyn Backend, spec: OpenSpec) -> BenchResult<Self> {
        let target = backend.open(&spec)?;
        Ok(Session {
            backend,
            spec,
            target: Some(target),
        })
    }

    fn target(&self) -> BenchResult<&dyn KvTarget> {
        self.target
            .as_deref()
            .ok_or_else(|| BenchError::Config("database is not open".into()))
    }

    fn close(&mut self) -> BenchResult<()> {
        match self.target.take() {
            Some(target) => target.close(),
            None => Ok(()),
        }
    }

    /// Closes and reopens with `cache`; with `wipe`, the directory is emptied in between.
    fn reopen(&mut self, cache: CacheMode, wipe: bool) -> BenchResult<()> {
        self.close()?;
        if wipe {
            remove_dir(&self.spec.dir)?;
            create_dir(&self.spec.dir)?;
        }
        self.spec.cache = cache;
        self.target = Some(self.backend.open(&self.spec)?);
        Ok(())
    }
}

/// Removes `dir` and everything in it; a missing directory is fine.
pub fn remove_dir(dir: &Path) -> BenchResult<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(BenchError::io(dir, e)),
        _ => Ok(()),
    }
}

/// Creates `dir` and its parents.
fn create_dir(dir: &Path) -> BenchResult<()> {
    std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, e))
}

/// Runs every phase of `args.workloads` once against `backend`; `run` numbers the result.
pub fn run_backend(
    backend: &dyn Backend,
    args: &BenchArgs,
    run: usize,
) -> BenchResult<Vec<PhaseResult>> {
    let dir = db_dir(args, backend);
    if !args.use_existing_db {
        remove_dir(&dir)?;
    }
    create_dir(&dir)?;
    let cached = CacheMode::Enabled(args.cache_bytes());
    let spec = OpenSpec {
        dir: dir.clone(),
        cache: cached,
        durability: args.durability,
        block_size: args.block_kb.map(|kb| kb.saturating_mul(1024)),
    };
    let mut session = Session::open(backend, spec)?;
    let results = run_phases(&mut session, args, run);
    // Close even after a failure so the next system does not find this one's files locked.
    let closed = session.close();
    let results = results?;
    closed?;
    if !args.keep_db {
        remove_dir(&dir)?;
    }
    Ok(results)
}

fn run_phases(
    session: &mut Session<'_>,
    args: &BenchArgs,
    run: usize,
) -> BenchResult<Vec<PhaseResult>> {
    let cached = CacheMode::Enabled(args.cache_bytes());
    let mut results = Vec::with_capacity(args.workloads.len());
    for (index, &workload) in args.workloads.iter().enumerate() {
        // The seed depends on the position and the workload, never on the system or the run,
        // so both systems see the same keys and no phase replays another's sequence.
        let phase_seed = derive_seed(args.seed, (index as u64 + 1) << 8 | workload as u64);
        if workload.starts_fresh() && (index > 0 || args.use_existing_db) {
            session.reopen(cached, true)?;
        }
        if workload == Workload::ReadrandomUncached {
            session.reopen(CacheMode::Disabled, false)?;
        }
        let name = session.backend.name();
        let mut result = run_phase(session.target()?, &name, args, workload, phase_seed)?;
        if workload.writes() {
            // A benchmark measures real time: the tool is its own composition root.
            #[allow(clippy::disallowed_methods)]
            let clock = strata_runtime::clock::system();
            let start = clock.now();
            session.target()?.flush()?;
            result.flush_secs = Some(clock.elapsed(start).as_secs_f64());
        }
        if workload == Workload::ReadrandomUncached {
            session.reopen(cached, false)?;
        }
        result.run = run;
        results.push(result);
    }
    Ok(results)
}
