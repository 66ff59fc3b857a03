//! Write latency and throughput of the engine on local WAL segments vs. the object WAL on a
//! store URL (default a `file://` directory): `cargo run --release -p strata-objstore
//! --example wal_backend_bench -- [WRITES] [THREADS] [sync|fsync] [STORE_URL]`. The object
//! WAL stores every batch as one PUT whatever the durability.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::sync::Arc;
use std::time::Duration;

use strata_engine::{Cell, Durability, Engine, EngineOptions, FamilyOptions, Region, RegionSpec};
use strata_objstore::{
    open_store, ObjectWalOpener, RandomTokens, RetryPolicy, StreamId, WriterDeps,
};
use strata_runtime::clock::system;
use strata_runtime::thread::spawn;

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> BenchResult<()> {
    let args: Vec<String> = std::env::args().collect();
    let writes: usize = args.get(1).map_or(Ok(2000), |a| a.parse())?;
    let threads: usize = args.get(2).map_or(Ok(1), |a| a.parse())?;
    let scratch = tempfile::tempdir()?;
    let objects_dir = scratch.path().join("objects");
    std::fs::create_dir_all(&objects_dir)?;
    let durability = match args.get(3).map(String::as_str) {
        None | Some("sync") => Durability::SyncWal,
        Some("fsync") => Durability::FsyncWal,
        Some(other) => return Err(format!("durability {other:?}: sync or fsync").into()),
    };
    let url = args
        .get(4)
        .cloned()
        .unwrap_or_else(|| format!("file://{}", objects_dir.display()));
    let local = run(
        EngineOptions::new(scratch.path().join("local")),
        writes,
        threads,
        durability,
    )?;
    report("local segments", writes, local);
    let mut options = EngineOptions::new(scratch.path().join("object"));
    let clock = system();
    let deps = WriterDeps {
        tokens: Arc::new(RandomTokens),
        clock: Arc::clone(&clock),
        retry: RetryPolicy::with_clock(clock),
    };
    let opener = ObjectWalOpener::new(open_store(&url)?, StreamId::new(1, 1), deps);
    options.wal_backend = Some(Arc::new(opener));
    let object = run(options, writes, threads, durability)?;
    report(&format!("object WAL on {url}"), writes, object);
    Ok(())
}

/// Per-write latencies of `writes` SyncWal puts spread over `threads`, and the wall time.
fn run(
    mut options: EngineOptions,
    writes: usize,
    threads: usize,
    durability: Durability,
) -> BenchResult<(Vec<Duration>, Duration)> {
    options.background_work = false;
    let engine = Engine::open(options)?;
    let spec = RegionSpec {
        id: 1,
        families: vec![FamilyOptions::new("cf")],
    };
    let region = engine.open_region(spec)?;
    let clock = system();
    let start = clock.now();
    let mut handles = Vec::new();
    for t in 0..threads {
        let region = Arc::clone(&region);
        let per_thread = writes / threads;
        handles.push(spawn(format!("bench-{t}"), move || {
            write_rows(&region, t, per_thread, durability)
        })?);
    }
    let mut latencies = Vec::new();
    for handle in handles {
        let done = handle.join().map_err(|_| "a bench thread panicked")?;
        latencies.extend(done?);
    }
    let wall = clock.elapsed(start);
    engine.close()?;
    Ok((latencies, wall))
}

fn write_rows(
    region: &Region,
    thread: usize,
    count: usize,
    durability: Durability,
) -> Result<Vec<Duration>, strata_engine::Error> {
    let clock = system();
    let mut latencies = Vec::with_capacity(count);
    for i in 0..count {
        let row = format!("t{thread}-row{i:08}");
        let cell = Cell::put(row, "cf", "q", 1_700_000_000_000, vec![b'x'; 100]);
        let start = clock.now();
        region.mutate(vec![cell], durability)?;
        latencies.push(clock.elapsed(start));
    }
    Ok(latencies)
}

fn report(name: &str, writes: usize, (mut latencies, wall): (Vec<Duration>, Duration)) {
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    let per_sec = writes as f64 / wall.as_secs_f64();
    println!(
        "{name}: {writes} writes in {wall:?} = {per_sec:.0}/s; p50 {:?} p99 {:?} max {:?}",
        at(0.5),
        at(0.99),
        at(1.0)
    );
}
