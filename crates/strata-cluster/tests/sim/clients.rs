//! The clients: threads that put, increment, check-and-mutate, get and scan through a
//! server chosen at random, each drawing from its own seeded generator, and tell the
//! model what they were answered.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_engine::{Cell, Get, Scan, LATEST_TIMESTAMP};
use strata_server::{Check, CompareOp, TableName, WriteDurability};

use crate::model::{Model, COUNT, FAMILY, STEP};
use crate::world::{Running, World, LEASE_TTL};

/// Rows `r00`..`r23`; the table is split at `r08` and `r16`.
pub const ROWS: u32 = 24;
pub const SPLITS: [&str; 2] = ["r08", "r16"];
const COUNTERS: u32 = 4;
/// An operation slower than this is noted in the run's log.
const SLOW: Duration = Duration::from_secs(2);

pub fn table() -> TableName {
    TableName::parse("sim").unwrap()
}

fn data_row(k: u32) -> Bytes {
    Bytes::from(format!("r{k:02}"))
}

/// One client's state.
struct Client {
    id: usize,
    rng: SmallRng,
    world: Arc<World>,
    model: Arc<Model>,
    puts: u64,
    /// The value this client's check-and-mutate cell holds, as far as it knows; `None`
    /// after an outcome it could not know, until a read tells it.
    step: Option<i64>,
}

/// Runs `clients` client threads until `stop` is set; joined by the caller.
pub fn start(
    world: &Arc<World>,
    model: &Arc<Model>,
    seed: u64,
    clients: usize,
    pace: Duration,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..clients)
        .map(|id| {
            let mut client = Client {
                id,
                rng: SmallRng::seed_from_u64(seed.wrapping_mul(31).wrapping_add(id as u64)),
                world: Arc::clone(world),
                model: Arc::clone(model),
                puts: 0,
                step: Some(0),
            };
            let stop = Arc::clone(stop);
            strata_runtime::thread::spawn(format!("sim-client-{id}"), move || {
                while !stop.load(Ordering::Acquire) {
                    client.one_operation();
                    if !pace.is_zero() {
                        client.world.clock.sleep(pace);
                    }
                }
            })
            .unwrap()
        })
        .collect()
}

impl Client {
    fn pick_server(&mut self) -> Option<Arc<Running>> {
        let slot = self.rng.random_range(0..self.world.slots());
        let running = self.world.running(slot);
        if running.is_none() {
            self.world.clock.sleep(Duration::from_millis(5));
        }
        running
    }

    fn one_operation(&mut self) {
        let Some(server) = self.pick_server() else {
            return;
        };
        let started = self.world.clock.now();
        let kind = match self.rng.random_range(0..100) {
            0..40 => {
                self.put(&server);
                "put"
            }
            40..55 => {
                self.increment(&server);
                "increment"
            }
            55..70 => {
                self.check_and_mutate(&server);
                "check-and-mutate"
            }
            70..92 => {
                self.get(&server);
                "get"
            }
            _ => {
                self.scan(&server);
                "scan"
            }
        };
        let took = self.world.clock.elapsed(started);
        if took > SLOW {
            self.world.note(format!(
                "client {}: a {kind} via s{} (#{}) took {took:.1?}",
                self.id, server.slot, server.number
            ));
        }
    }

    /// Whether `server`, paused past its lease, answered after it must have stopped.
    fn check_fenced(&self, server: &Running, what: &str) {
        let paused = *server.paused_at.lock();
        if let Some(at) = paused {
            // Its own deadline is at most TTL after its last renewal, which came before
            // the pause: anything it acknowledges later than that is a fenced ack.
            if self.world.clock.elapsed(at) > LEASE_TTL {
                self.model
                    .fenced_ack(format!("{what} via s{} (#{})", server.slot, server.number));
            }
        }
    }

    fn put(&mut self, server: &Running) {
        self.puts += 1;
        let row = data_row(self.rng.random_range(0..ROWS));
        let qualifier = Bytes::from(format!("c{}-{}", self.id, self.puts));
        let value = Bytes::from(format!("v{}-{}", self.id, self.puts));
        let key = (row.clone(), qualifier.clone());
        self.model.put_started(key.clone(), value.clone());
        let cell = Cell::put(row, FAMILY, qualifier, LATEST_TIMESTAMP, value.clone());
        let answer =
            server
                .service
                .rows()
                .mutate(&table(), vec![cell], WriteDurability::UseDefault);
        match answer {
            Ok(()) => {
                self.check_fenced(server, "a put");
                let via = format!(
                    "by s{} (#{}) at {} ms",
                    server.slot,
                    server.number,
                    self.world.elapsed_ms()
                );
                self.model
                    .put_acked(key, value, self.world.clock.now(), via);
            }
            Err(_) => self.model.put_unknown(key, value),
        }
    }

    fn increment(&mut self, server: &Running) {
        let row = Bytes::from(format!("n{}", self.rng.random_range(0..COUNTERS)));
        let answer = server
            .service
            .rows()
            .increment(&table(), &row, FAMILY, COUNT, 1);
        if answer.is_ok() {
            self.check_fenced(server, "an increment");
        }
        self.model.increment(row, answer.is_ok());
    }

    fn step_row(&self) -> Bytes {
        Bytes::from(format!("x{}", self.id))
    }

    /// Steps this client's own cell from the value it knows to the next; only this
    /// client writes it, so a refusal means an earlier unknown outcome was applied.
    fn check_and_mutate(&mut self, server: &Running) {
        let row = self.step_row();
        let Some(known) = self.step else {
            return self.learn_step(server);
        };
        let check = Check {
            row: row.clone(),
            family: Bytes::from_static(FAMILY),
            qualifier: Bytes::from_static(STEP),
            op: CompareOp::Equal,
            value: (known > 0).then(|| Bytes::from(known.to_string())),
        };
        let next = Bytes::from((known + 1).to_string());
        let cell = Cell::put(row.clone(), FAMILY, STEP, LATEST_TIMESTAMP, next);
        let answer = server.service.rows().check_and_mutate(
            &table(),
            &check,
            vec![cell],
            WriteDurability::UseDefault,
        );
        match answer {
            Ok(true) => {
                self.check_fenced(server, "a check-and-mutate");
                self.model.step(row, true);
                self.step = Some(known + 1);
            }
            Ok(false) => {
                self.model.violation(format!(
                    "client {}: check-and-mutate from {known} refused with no unknown \
                     outcome before it (via s{})",
                    self.id, server.slot
                ));
                self.step = None;
            }
            Err(_) => {
                self.model.step(row, false);
                self.step = None;
            }
        }
    }

    /// Reads this client's cell to learn where it stands after an unknown outcome.
    fn learn_step(&mut self, server: &Running) {
        let get = Get::new(self.step_row()).column(FAMILY, STEP);
        if let Ok(row) = server.service.rows().get(&table(), &get) {
            let value = row
                .and_then(|r| r.cells.first().map(|c| c.value.clone()))
                .and_then(|v| std::str::from_utf8(&v).ok()?.parse::<i64>().ok());
            self.step = Some(value.unwrap_or(0));
        }
    }

    fn get(&mut self, server: &Running) {
        let row = data_row(self.rng.random_range(0..ROWS));
        let started = self.world.clock.now();
        let get = Get::new(row.clone()).family(FAMILY);
        if let Ok(read) = server.service.rows().get(&table(), &get) {
            let via = format!("s{} (#{}) get", server.slot, server.number);
            self.model.check_row(&row, read.as_ref(), started, &via);
        }
    }

    fn scan(&mut self, server: &Running) {
        let started = self.world.clock.now();
        let reversed = self.rng.random_bool(0.3);
        let scan = Scan::new()
            .range(data_row(0), data_row(ROWS))
            .family(FAMILY)
            .reversed(reversed);
        let scan = if reversed {
            scan.range(data_row(ROWS), Bytes::new())
        } else {
            scan
        };
        let Ok(mut rows) = server.service.scanners().scan_rows(&table(), scan) else {
            return;
        };
        let mut read = std::collections::BTreeMap::new();
        loop {
            match rows.next_row() {
                Ok(Some(row)) => {
                    read.insert(row.row.clone(), row);
                }
                Ok(None) => break,
                Err(_) => return,
            }
        }
        let via = format!("s{} (#{}) scan", server.slot, server.number);
        for k in 0..ROWS {
            let row = data_row(k);
            self.model.check_row(&row, read.get(&row), started, &via);
        }
    }
}
