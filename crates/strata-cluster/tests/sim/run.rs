//! One seed's run: start the cluster, create the table, let the clients loose, play the
//! schedule, then settle and check.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_engine::FamilyOptions;
use strata_server::SplitAt;

use crate::clients::{self, table, ROWS, SPLITS};
use crate::model::Model;
use crate::schedule::{self, Fault, Profile, Step};
use crate::settle;
use crate::world::World;

/// How big one run is: how long its schedule plays, and how hard its clients push.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// How long the schedule plays.
    pub span_ms: u64,
    /// Client threads.
    pub clients: usize,
    /// How long each client waits after each operation.
    pub pace: Duration,
}

impl Shape {
    /// The soak's run: 5 s of faults, clients as fast as they go.
    pub const LONG: Shape = Shape {
        span_ms: 5_000,
        clients: 3,
        pace: Duration::ZERO,
    };
    /// The test command's run, small enough for hundreds of seeds: a second and a half
    /// of faults (four or five of them), clients that pause a millisecond between
    /// operations so that several runs share the machine.
    pub const SWEEP: Shape = Shape {
        span_ms: 1_500,
        clients: 3,
        pace: Duration::from_millis(1),
    };
}
/// A run taking longer than this is a hang: the process aborts with the seed printed.
const DEADLINE: Duration = Duration::from_secs(120);

/// A switch to turn back later (the end of a blip or a pause).
struct Pending {
    at_ms: u64,
    undo: Box<dyn FnOnce(&World) + Send>,
}

/// Runs `seed`; `Err` holds the whole report of a failure.
pub fn run_seed(seed: u64, profile: Profile, shape: Shape) -> Result<String, String> {
    let servers = 3 + (seed % 3) as usize;
    let steps = schedule::draw(seed, servers, shape.span_ms, profile);
    let world = Arc::new(World::new(seed, servers));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = watchdog(seed, &world, &done);
    let started = world.clock.now();
    let outcome = play(seed, &world, &steps, shape);
    let played = world.clock.elapsed(started);
    world.shutdown();
    done.store(true, Ordering::Release);
    let outcome = outcome.map(|report| {
        let total = world.clock.elapsed(started);
        let report = format!("{report}; {played:.1?} played, {total:.1?} with the shutdown");
        if std::env::var_os("STRATA_SIM_VERBOSE").is_some() {
            format!("{report}\n{}", world.log.lock().join("\n"))
        } else {
            report
        }
    });
    let _ = watchdog.join();
    outcome.map_err(|problems| failure_report(seed, servers, &steps, &world, &problems))
}

fn play(
    seed: u64,
    world: &Arc<World>,
    steps: &[Step],
    shape: Shape,
) -> Result<String, Vec<String>> {
    for slot in 0..world.slots() {
        world
            .start(slot)
            .map_err(|e| vec![format!("cannot start s{slot}: {e}")])?;
    }
    world.note("servers started".into());
    create_table(world)?;
    world.note("table created".into());
    settle::settled(world).map_err(|e| vec![format!("never settled after create: {e}")])?;
    world.note("settled; clients start".into());
    let model = Arc::new(Model::default());
    let stop = Arc::new(AtomicBool::new(false));
    let clients = clients::start(world, &model, seed, shape.clients, shape.pace, &stop);
    let admin = play_schedule(seed, world, steps);
    world.note("schedule played".into());
    stop.store(true, Ordering::Release);
    for client in clients {
        let _ = client.join();
    }
    world.note("clients stopped".into());
    for job in admin {
        let _ = job.join();
    }
    world.note("administration done".into());
    world.heal_all();
    world.reap();
    restart_empty(world);
    let mut problems = model.running_problems();
    let settling = world.clock.now();
    if let Err(e) = settle::settled(world) {
        problems.push(format!("the cluster did not settle: {e}"));
        return Err(problems);
    }
    let settled_in = world.clock.elapsed(settling);
    problems.extend(settle::final_reads(world, &model));
    let (puts, increments, steps_done) = model.acked_counts();
    if problems.is_empty() {
        Ok(format!(
            "{} servers, {puts} puts, {increments} increments, {steps_done} check-and-mutates \
             acknowledged; {} faults; settled in {settled_in:.1?}",
            world.slots(),
            steps.len()
        ))
    } else {
        Err(problems)
    }
}

fn create_table(world: &World) -> Result<(), Vec<String>> {
    let splits = SPLITS.iter().map(|s| Bytes::from(*s)).collect::<Vec<_>>();
    let mut last = String::new();
    for _ in 0..200 {
        for running in world.all_running() {
            match running.service.admin().create_table(
                &table(),
                vec![FamilyOptions::new(crate::model::FAMILY)],
                splits.clone(),
            ) {
                Ok(()) => return Ok(()),
                Err(e) => last = e.to_string(),
            }
        }
        world.clock.sleep(Duration::from_millis(50));
    }
    Err(vec![format!("cannot create the table: {last}")])
}

/// Plays the schedule on this thread; admin requests run on threads of their own (a
/// move waits for a flush), returned for joining.
fn play_schedule(
    seed: u64,
    world: &Arc<World>,
    steps: &[Step],
) -> Vec<std::thread::JoinHandle<()>> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xad);
    let started = world.clock.now();
    let elapsed_ms = || world.clock.elapsed(started).as_millis() as u64;
    let mut pending: Vec<Pending> = Vec::new();
    let mut admin = Vec::new();
    let mut next = 0;
    while next < steps.len() || !pending.is_empty() {
        let now = elapsed_ms();
        if let Some(step) = steps.get(next).filter(|s| s.at_ms <= now) {
            world.note(format!("fault {:?}", step.fault));
            apply(world, step.fault, now, &mut rng, &mut pending, &mut admin);
            next += 1;
        }
        let (due, later): (Vec<_>, Vec<_>) = pending.drain(..).partition(|p| p.at_ms <= now);
        pending = later;
        for p in due {
            (p.undo)(world);
        }
        world.tick_lessor();
        world.reap();
        world.clock.sleep(Duration::from_millis(10));
    }
    admin
}

fn apply(
    world: &Arc<World>,
    fault: Fault,
    now: u64,
    rng: &mut SmallRng,
    pending: &mut Vec<Pending>,
    admin: &mut Vec<std::thread::JoinHandle<()>>,
) {
    let later = |ms: u64, undo: Box<dyn FnOnce(&World) + Send>| Pending {
        at_ms: now + ms,
        undo,
    };
    match fault {
        Fault::Kill(slot, ms) => {
            world.kill(slot, "scheduled");
            pending.push(later(ms, Box::new(move |w| restart(w, slot))));
        }
        Fault::KillMaster(ms) => {
            if let Some(master) = world.all_running().into_iter().find(|r| r.is_master()) {
                let slot = master.slot;
                world.kill(slot, "the master");
                pending.push(later(ms, Box::new(move |w| restart(w, slot))));
            }
        }
        Fault::RestartAll => restart_empty(world),
        Fault::Pause(slot, ms) => {
            world.pause(slot);
            pending.push(later(ms, Box::new(move |w| w.resume(slot))));
            // By then it has found its lease gone and stopped (the reaper): a new start.
            pending.push(later(ms + 300, Box::new(move |w| restart(w, slot))));
        }
        Fault::EtcdBlip(slot, ms) => {
            world.etcd_blip(slot, true);
            pending.push(later(ms, Box::new(move |w| w.etcd_blip(slot, false))));
        }
        Fault::StoreBlip(slot, ms) => {
            world.store_blip(slot, true);
            pending.push(later(ms, Box::new(move |w| w.store_blip(slot, false))));
        }
        Fault::LoseReplies(slot, n) => {
            if let Some(running) = world.running(slot) {
                world
                    .net
                    .lose_replies(&format!("s{slot}:{}", running.number), n);
            }
        }
        Fault::Move | Fault::Split | Fault::Merge => {
            let choice = rng.random::<u64>();
            let world = Arc::clone(world);
            admin.push(
                strata_runtime::thread::spawn("sim-admin", move || {
                    administer(&world, fault, choice)
                })
                .unwrap(),
            );
        }
    }
}

/// A move, split or merge through a random running server (forwarded to the master).
fn administer(world: &World, fault: Fault, choice: u64) {
    let running = world.all_running();
    if running.is_empty() {
        return;
    }
    let via = &running[(choice % running.len() as u64) as usize];
    let regions = match via.service.admin().table_regions(&table()) {
        Ok(regions) => regions,
        Err(e) => return world.note(format!("{fault:?}: cannot list regions: {e}")),
    };
    let pick = (choice >> 8) as usize;
    let outcome = match fault {
        Fault::Move => {
            let region = &regions[pick % regions.len()];
            let target = &running[(pick >> 4) % running.len()].sid;
            via.service
                .admin()
                .cluster_admin()
                .and_then(|admin| admin.move_region(region.id, Some(target)))
                .map(|to| format!("moved region {} to {to}", region.id))
        }
        Fault::Split => {
            let row = format!("r{:02}", 1 + (pick as u32 % (ROWS - 1)));
            via.service
                .admin()
                .split_region(&table(), SplitAt::Key(Bytes::from(row.clone())))
                .map(|(a, b)| format!("split at {row} into {a} and {b}"))
        }
        _ if regions.len() >= 2 => {
            let at = pick % (regions.len() - 1);
            let (a, b) = (regions[at].id, regions[at + 1].id);
            via.service
                .admin()
                .merge_regions(&table(), a, b)
                .map(|m| format!("merged {a} and {b} into {m}"))
        }
        _ => return,
    };
    match outcome {
        Ok(done) => world.note(done),
        Err(e) => world.note(format!("{fault:?} refused: {e}")),
    }
}

fn restart_empty(world: &World) {
    for slot in 0..world.slots() {
        restart(world, slot);
    }
}

/// Starts a server in `slot` if none runs there.
fn restart(world: &World, slot: usize) {
    if world.running(slot).is_none() {
        if let Err(e) = world.start(slot) {
            world.note(format!("restart of s{slot} failed: {e}"));
        }
    }
}

/// Aborts the process with the seed printed if the run hangs.
fn watchdog(seed: u64, world: &Arc<World>, done: &Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    let (world, done) = (Arc::clone(world), Arc::clone(done));
    strata_runtime::thread::spawn("sim-watchdog", move || {
        let started = world.clock.now();
        while !done.load(Ordering::Acquire) {
            if world.clock.elapsed(started) > DEADLINE {
                eprintln!(
                    "seed {seed} hung for {DEADLINE:?}; replay with STRATA_SIM_SEED={seed}\n{}",
                    world.log.lock().join("\n")
                );
                std::process::abort();
            }
            world.clock.sleep(Duration::from_millis(100));
        }
    })
    .unwrap()
}

fn failure_report(
    seed: u64,
    servers: usize,
    steps: &[Step],
    world: &World,
    problems: &[String],
) -> String {
    let schedule: Vec<String> = steps.iter().map(|s| format!("  {s}")).collect();
    // The first of each problem, and at most 40 of them: one bug is often seen by every read.
    let mut seen = std::collections::HashSet::new();
    let mut problems: Vec<&String> = problems.iter().filter(|p| seen.insert(*p)).collect();
    let total = problems.len();
    problems.truncate(40);
    if total > problems.len() {
        let more = format!("... and {} more", total - problems.len());
        return format!(
            "{}\n  {more}",
            failure_text(seed, servers, &schedule, world, &problems)
        );
    }
    failure_text(seed, servers, &schedule, world, &problems)
}

fn failure_text(
    seed: u64,
    servers: usize,
    schedule: &[String],
    world: &World,
    problems: &[&String],
) -> String {
    let problems: Vec<&str> = problems.iter().map(|p| p.as_str()).collect();
    format!(
        "seed {seed} ({servers} servers); replay with STRATA_SIM_SEED={seed} (and the same \
         test name) cargo test -p strata-cluster --test sim -- --nocapture\nproblems:\n  {}\nschedule:\n{}\nwhat \
         happened:\n{}",
        problems.join("\n  "),
        schedule.join("\n"),
        world.log.lock().join("\n")
    )
}
