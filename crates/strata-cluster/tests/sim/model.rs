//! What the clients were told, and the checks against it. A put writes a cell no other
//! put writes, so it is in the table once acknowledged and forever after; a counter ends
//! between its acknowledged increments and those plus the ones whose outcome the client
//! could not know; each client's check-and-mutate cell only ever steps by one.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_engine::RowResult;

/// A cell's coordinates: row and qualifier (one family).
pub type CellKey = (Bytes, Bytes);

#[derive(Debug, Default)]
struct State {
    /// Puts acknowledged: the value, when the acknowledgement came, and through which
    /// server and when (for the report).
    acked: HashMap<CellKey, (Bytes, Instant, String)>,
    /// Puts whose outcome is unknown: they may or may not be there.
    maybe: HashMap<CellKey, Bytes>,
    /// Per counter row: increments acknowledged, and those of unknown outcome.
    counters: BTreeMap<Bytes, (i64, i64)>,
    /// Per check-and-mutate row: steps acknowledged, and those of unknown outcome.
    steps: BTreeMap<Bytes, (i64, i64)>,
    /// Writes a fenced server acknowledged (must stay empty).
    fenced_acks: Vec<String>,
    /// Every violation seen while the clients ran.
    violations: Vec<String>,
}

/// The shared model.
#[derive(Debug, Default)]
pub struct Model {
    state: Mutex<State>,
}

/// The family every simulated write goes to.
pub const FAMILY: &[u8] = b"f";
/// The counter column.
pub const COUNT: &[u8] = b"n";
/// The check-and-mutate column.
pub const STEP: &[u8] = b"s";

impl Model {
    pub fn put_acked(&self, key: CellKey, value: Bytes, at: Instant, via: String) {
        self.state.lock().acked.insert(key, (value, at, via));
    }

    pub fn put_unknown(&self, key: CellKey, value: Bytes) {
        self.state.lock().maybe.insert(key, value);
    }

    pub fn increment(&self, row: Bytes, acked: bool) {
        let mut state = self.state.lock();
        let entry = state.counters.entry(row).or_default();
        if acked {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }

    pub fn step(&self, row: Bytes, acked: bool) {
        let mut state = self.state.lock();
        let entry = state.steps.entry(row).or_default();
        if acked {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }

    pub fn fenced_ack(&self, what: String) {
        self.state.lock().fenced_acks.push(what);
    }

    pub fn violation(&self, what: String) {
        self.state.lock().violations.push(what);
    }

    /// Checks one read of `row` that started at `started`: every put to it acknowledged
    /// before then is there, with its value, and nothing is there that was never written.
    pub fn check_row(&self, row: &[u8], read: Option<&RowResult>, started: Instant, via: &str) {
        let state = self.state.lock();
        let mut problems = Vec::new();
        let cells: HashMap<&[u8], &Bytes> = read
            .map(|r| {
                r.cells
                    .iter()
                    .filter(|c| c.family.as_ref() == FAMILY)
                    .map(|c| (c.qualifier.as_ref(), &c.value))
                    .collect()
            })
            .unwrap_or_default();
        for ((r, q), (value, at, acked_via)) in &state.acked {
            if r.as_ref() == row && *at < started && cells.get(q.as_ref()) != Some(&value) {
                problems.push(format!(
                    "acknowledged put {}/{} = {} missing (found {:?}; acknowledged {acked_via})",
                    text(r),
                    text(q),
                    text(value),
                    cells.get(q.as_ref()).map(|v| text(v))
                ));
            }
        }
        for (q, value) in &cells {
            let key = (Bytes::copy_from_slice(row), Bytes::copy_from_slice(q));
            let known = state.acked.get(&key).map(|(v, _, _)| v) == Some(*value)
                || state.maybe.get(&key) == Some(*value);
            let special = *q == COUNT || *q == STEP;
            if !known && !special {
                problems.push(format!(
                    "cell {}/{} = {} was never written (or not yet acknowledged)",
                    text(row),
                    text(q),
                    text(value)
                ));
            }
        }
        drop(state);
        for problem in problems {
            self.violation(format!("read of {} via {via}: {problem}", text(row)));
        }
    }

    /// A put about to be sent: from now on a read may see its cell, acknowledged or not.
    pub fn put_started(&self, key: CellKey, value: Bytes) {
        self.state.lock().maybe.insert(key, value);
    }

    /// The final checks over whole-table reads through one server.
    pub fn check_final(&self, rows: &[RowResult], via: &str) -> Vec<String> {
        let state = self.state.lock();
        let mut problems = Vec::new();
        let mut found: HashMap<CellKey, Bytes> = HashMap::new();
        for row in rows {
            for cell in &row.cells {
                found.insert(
                    (cell.row.clone(), cell.qualifier.clone()),
                    cell.value.clone(),
                );
            }
        }
        for (key, (value, _, acked_via)) in &state.acked {
            if found.get(key) != Some(value) {
                problems.push(format!(
                    "via {via}: acknowledged put {}/{} = {} lost (found {:?}; acknowledged \
                     {acked_via})",
                    text(&key.0),
                    text(&key.1),
                    text(value),
                    found.get(key).map(|v| text(v))
                ));
            }
        }
        for (row, (acked, unknown)) in &state.counters {
            let value = found
                .get(&(row.clone(), Bytes::from_static(COUNT)))
                .map_or(0, |v| counter_value(v));
            if value < *acked || value > acked + unknown {
                problems.push(format!(
                    "via {via}: counter {} is {value}; {acked} increments acknowledged, \
                     {unknown} of unknown outcome",
                    text(row)
                ));
            }
        }
        for (row, (acked, unknown)) in &state.steps {
            let value = found
                .get(&(row.clone(), Bytes::from_static(STEP)))
                .and_then(|v| std::str::from_utf8(v).ok()?.parse::<i64>().ok())
                .unwrap_or(0);
            if value < *acked || value > acked + unknown {
                problems.push(format!(
                    "via {via}: check-and-mutate cell {} is {value}; {acked} steps \
                     acknowledged, {unknown} of unknown outcome",
                    text(row)
                ));
            }
        }
        problems
    }

    /// Violations seen while running, and fenced acknowledgements.
    pub fn running_problems(&self) -> Vec<String> {
        let state = self.state.lock();
        let mut problems = state.violations.clone();
        problems.extend(
            state
                .fenced_acks
                .iter()
                .map(|a| format!("a fenced server acknowledged: {a}")),
        );
        problems
    }

    /// How many operations were acknowledged, for the report.
    pub fn acked_counts(&self) -> (usize, i64, i64) {
        let state = self.state.lock();
        (
            state.acked.len(),
            state.counters.values().map(|c| c.0).sum(),
            state.steps.values().map(|c| c.0).sum(),
        )
    }
}

/// A counter cell's value: HBase's 8-byte big-endian long.
pub fn counter_value(bytes: &[u8]) -> i64 {
    <[u8; 8]>::try_from(bytes).map_or(-1, i64::from_be_bytes)
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
