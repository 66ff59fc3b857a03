//! The rule engine shared by a `FaultFs` and every handle it returned.

use std::io;
use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::util::clock::Clock;

use super::{FaultKind, FaultOp, FaultRule, RuleId};

/// What the caller of [`Injector::check`] must do.
#[derive(Debug)]
pub(super) enum Verdict {
    /// Run the operation normally.
    Pass,
    /// Fail with this error without running the operation.
    Fail(io::Error),
    /// Run the read, then flip a bit in its result.
    CorruptRead,
    /// Append a prefix of the bytes, then fail.
    TornAppend,
    /// Wait this long (on the injector's clock, outside its lock), then run normally.
    Delay(std::time::Duration),
}

struct ActiveRule {
    id: RuleId,
    rule: FaultRule,
    /// Matching operations seen so far (the first `skip` of them pass).
    seen: u64,
    /// Faults this rule injected.
    fired: u64,
}

impl ActiveRule {
    fn matches(&self, op: FaultOp, paths: &[&Path]) -> bool {
        self.rule.op == op
            && match &self.rule.path_contains {
                None => true,
                Some(needle) => paths
                    .iter()
                    .any(|p| p.to_string_lossy().contains(needle.as_str())),
            }
    }

    fn due(&self) -> bool {
        self.seen > self.rule.skip && self.rule.times.is_none_or(|t| self.fired < t)
    }
}

/// Rules, modes and counters.
#[derive(Default)]
pub(super) struct Injector {
    next_id: u64,
    rules: Vec<ActiveRule>,
    read_only: bool,
    /// Bytes that may still be flushed before the disk is full.
    disk_budget: Option<u64>,
    /// Set once a flush was refused for space; appends fail from then on too.
    disk_full: bool,
    injected: u64,
    /// The clock delays sleep on (the system's unless a test injects one).
    clock: Option<Arc<dyn Clock>>,
}

impl std::fmt::Debug for Injector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Injector")
            .field("rules", &self.rules.len())
            .field("read_only", &self.read_only)
            .field("disk_budget", &self.disk_budget)
            .field("injected", &self.injected)
            .finish()
    }
}

fn injected_error(kind: io::ErrorKind, op: FaultOp) -> io::Error {
    io::Error::new(kind, format!("injected fault on {op:?}"))
}

impl Injector {
    pub fn add(&mut self, rule: FaultRule) -> RuleId {
        self.next_id += 1;
        let id = RuleId(self.next_id);
        self.rules.push(ActiveRule {
            id,
            rule,
            seen: 0,
            fired: 0,
        });
        id
    }

    pub fn remove(&mut self, id: RuleId) -> bool {
        let before = self.rules.len();
        self.rules.retain(|r| r.id != id);
        self.rules.len() != before
    }

    pub fn clear(&mut self) {
        self.rules.clear();
    }

    pub fn injected(&self) -> u64 {
        self.injected
    }

    pub fn set_read_only(&mut self, on: bool) {
        self.read_only = on;
    }

    pub fn set_disk_full_after(&mut self, bytes: Option<u64>) {
        self.disk_budget = bytes;
        self.disk_full = false;
    }

    pub fn disk_budget(&self) -> Option<u64> {
        self.disk_budget
    }

    /// Decides the fate of one operation. Modes come first, then rules in insertion order;
    /// every matching rule counts the operation, the first one due fires.
    pub fn check(&mut self, op: FaultOp, paths: &[&Path]) -> Verdict {
        if self.read_only && op.is_mutating() {
            return self.fail(io::ErrorKind::PermissionDenied, op);
        }
        if self.disk_full && op == FaultOp::Append {
            return self.fail(io::ErrorKind::StorageFull, op);
        }
        let mut verdict = Verdict::Pass;
        for active in self.rules.iter_mut().filter(|r| r.matches(op, paths)) {
            active.seen += 1;
            if matches!(verdict, Verdict::Pass) && active.due() {
                active.fired += 1;
                verdict = match active.rule.kind {
                    FaultKind::Error(kind) => Verdict::Fail(injected_error(kind, op)),
                    FaultKind::CorruptRead => Verdict::CorruptRead,
                    FaultKind::TornAppend => Verdict::TornAppend,
                    FaultKind::Delay(d) => Verdict::Delay(d),
                };
            }
        }
        if !matches!(verdict, Verdict::Pass) {
            self.injected += 1;
        }
        verdict
    }

    /// Delays sleep on `clock` from now on.
    pub fn set_clock(&mut self, clock: Arc<dyn Clock>) {
        self.clock = Some(clock);
    }

    // A test's fault injector without a clock of its own waits in real time.
    #[allow(clippy::disallowed_methods)]
    fn clock(&self) -> Arc<dyn Clock> {
        self.clock
            .clone()
            .unwrap_or_else(crate::util::clock::system)
    }

    /// Charges `bytes` about to reach the OS against the disk budget; refuses when they do
    /// not fit (the whole write fails, nothing is written).
    pub fn charge(&mut self, op: FaultOp, bytes: u64) -> Option<io::Error> {
        let budget = self.disk_budget?;
        if self.disk_full || bytes > budget {
            self.disk_full = true;
            return Some(self.fail_error(io::ErrorKind::StorageFull, op));
        }
        self.disk_budget = Some(budget - bytes);
        None
    }

    fn fail(&mut self, kind: io::ErrorKind, op: FaultOp) -> Verdict {
        Verdict::Fail(self.fail_error(kind, op))
    }

    fn fail_error(&mut self, kind: io::ErrorKind, op: FaultOp) -> io::Error {
        self.injected += 1;
        injected_error(kind, op)
    }
}

/// Checks the rules for `op`; a delay is slept here, after the lock is released (so a slow
/// volume's delay never holds up operations on other files), and then passes.
pub(super) fn check_and_wait(injector: &Mutex<Injector>, op: FaultOp, paths: &[&Path]) -> Verdict {
    let (verdict, clock) = {
        let mut guard = injector.lock();
        let verdict = guard.check(op, paths);
        let clock = matches!(verdict, Verdict::Delay(_)).then(|| guard.clock());
        (verdict, clock)
    };
    match (verdict, clock) {
        (Verdict::Delay(duration), Some(clock)) => {
            clock.sleep(duration);
            Verdict::Pass
        }
        (verdict, _) => verdict,
    }
}
