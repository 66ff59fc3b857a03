//! A randomized check of the protocol against a simple model: random appends, fences and
//! faults (lost requests, lost responses, a fencer running in the middle of a PUT, a writer
//! running in the middle of a fence). Properties:
//! - every acknowledged batch is replayed from below the final fence;
//! - no acknowledged object lies at or above any fence, and no append that began after a
//!   fence completed is acknowledged;
//! - replay returns only edits that were written, in seq order per region.
//!
//! Every run is determined by its seed; a failure prints the seed and the step trace.

use std::collections::BTreeSet;
use std::sync::Arc;

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_engine::codec::WalEdit;

use super::{batch, deps, edit, Harness};
use crate::testing::{run_on_other_thread, Fault, Op};
use crate::{fence_stream, Fenced, WalStreamWriter};

const SEEDS: u64 = 200;
/// Steps per seed; a fenced writer is checked and replaced by a new incarnation's.
const STEPS: usize = 60;
const REGIONS: u64 = 4;

/// (object id, edits) of every acknowledged batch.
type AckedBatches = Arc<Mutex<Vec<(u64, Vec<WalEdit>)>>>;

struct Run {
    h: Harness,
    writer: Arc<Mutex<WalStreamWriter>>,
    acked: AckedBatches,
    fences: Arc<Mutex<Vec<Fenced>>>,
    written: BTreeSet<(u64, u64)>,
    violations: Arc<Mutex<Vec<String>>>,
    rng: SmallRng,
    next_seq: u64,
    next_seed: u64,
    trace: Vec<String>,
}

impl Run {
    fn new(seed: u64) -> Self {
        let h = Harness::new();
        let writer = Arc::new(Mutex::new(h.writer(seed)));
        Run {
            h,
            writer,
            acked: Arc::default(),
            fences: Arc::default(),
            written: BTreeSet::new(),
            violations: Arc::default(),
            rng: SmallRng::seed_from_u64(seed),
            next_seq: 1,
            next_seed: seed * 1_000 + 1,
            trace: Vec::new(),
        }
    }

    fn random_edits(&mut self) -> Vec<WalEdit> {
        let count = self.rng.random_range(1..=3);
        (0..count)
            .map(|_| {
                let (region, seq) = (self.rng.random_range(1..=REGIONS), self.next_seq);
                self.next_seq += 1;
                self.written.insert((region, seq));
                edit(region, seq)
            })
            .collect()
    }

    /// An action that appends `edits` as the zombie and checks the outcome.
    fn append_action(&self, edits: Vec<WalEdit>) -> impl FnOnce() + Send + 'static {
        let (writer, acked, fences) =
            (self.writer.clone(), self.acked.clone(), self.fences.clone());
        let violations = self.violations.clone();
        move || {
            let fences_before = fences.lock().len();
            let result = writer.lock().append(&batch(&edits));
            if let Ok(durable) = result {
                if fences_before > 0 {
                    violations.lock().push(format!(
                        "object {} acked after a completed fence",
                        durable.object_id
                    ));
                }
                acked.lock().push((durable.object_id, edits));
            }
        }
    }

    fn fencer_action(&mut self) -> Box<dyn FnOnce() + Send> {
        let (store, stream, fences) = (
            self.h.master_store.clone(),
            self.h.stream,
            self.fences.clone(),
        );
        let seed = self.next_seed;
        self.next_seed += 1;
        Box::new(move || {
            let fenced = run_on_other_thread(move || fence_stream(&store, stream, &deps(seed)));
            fences
                .lock()
                .push(fenced.unwrap_or_else(|e| panic!("fence failed: {e}")));
        })
    }

    fn step(&mut self) {
        let choice = self.rng.random_range(0..100);
        self.trace.push(format!("step {choice}"));
        match choice {
            0..=93 => self.append_with_writer_fault(),
            94..=95 => (self.fencer_action())(),
            96..=97 => {
                let edits = self.random_edits();
                let zombie = self.append_action(edits);
                self.h.master_faults.inject(
                    Op::Put,
                    Fault::RunBefore(Box::new(move || run_on_other_thread(zombie))),
                );
                (self.fencer_action())();
            }
            _ => {
                self.h.master_faults.inject(Op::Put, Fault::FailAfter);
                (self.fencer_action())();
            }
        }
        self.h.faults.clear();
        self.h.master_faults.clear();
    }

    fn append_with_writer_fault(&mut self) {
        let faults = self.h.faults.clone();
        // Fencers interrupt a PUT in 3 cases of 24, so a stream sees several batches and
        // faults before it is sealed.
        match self.rng.random_range(0..24) {
            0 => faults.inject(Op::Put, Fault::RunBefore(self.fencer_action())),
            1 => faults.inject(Op::Put, Fault::RunThenFail(self.fencer_action())),
            2 => faults.inject(Op::Put, Fault::RunAfterThenFail(self.fencer_action())),
            3..=7 => (0..self.rng.random_range(1..=8))
                .for_each(|_| faults.inject(Op::Put, Fault::FailBefore)),
            8..=11 => faults.inject(Op::Put, Fault::FailAfter),
            12..=13 => {
                faults.inject(Op::Put, Fault::FailAfter);
                faults.inject(Op::Get, Fault::FailBefore);
            }
            _ => {}
        }
        let edits = self.random_edits();
        (self.append_action(edits))();
    }

    fn check(mut self) -> Result<(), String> {
        let final_fence = self.h.fence(self.next_seed).map_err(|e| e.to_string())?;
        self.fences.lock().push(final_fence.clone());
        let mut problems = self.violations.lock().clone();
        let lowest_fence = self
            .fences
            .lock()
            .iter()
            .map(|f| f.fence_id)
            .min()
            .unwrap_or(u64::MAX);
        let mut acked = BTreeSet::new();
        for (id, edits) in self.acked.lock().iter() {
            if *id >= lowest_fence {
                problems.push(format!(
                    "object {id} acked at or above fence {lowest_fence}"
                ));
            }
            acked.extend(edits.iter().map(|e| (e.region_id, e.seq)));
        }
        let mut replayed = BTreeSet::new();
        for region in 1..=REGIONS {
            let seqs: Vec<u64> = self
                .h
                .replay(&final_fence, region)
                .iter()
                .map(|e| e.seq)
                .collect();
            if !seqs.is_sorted() {
                problems.push(format!("region {region} replays out of order: {seqs:?}"));
            }
            replayed.extend(seqs.into_iter().map(|s| (region, s)));
        }
        if let Some(lost) = acked.difference(&replayed).next() {
            problems.push(format!("acked edit {lost:?} is not replayed"));
        }
        if let Some(ghost) = replayed.difference(&self.written).next() {
            problems.push(format!("replayed edit {ghost:?} was never written"));
        }
        self.trace
            .push(format!("final fence {}", final_fence.fence_id));
        match problems.is_empty() {
            true => Ok(()),
            false => Err(format!("{problems:?}\ntrace: {:?}", self.trace)),
        }
    }
}

/// Runs one seed; returns how many batches were acknowledged and streams sealed.
fn run_seed(seed: u64) -> Result<(usize, u64), String> {
    let mut incarnation = 0;
    let mut acked = 0;
    let mut run = Run::new(seed << 8);
    for _ in 0..STEPS {
        run.step();
        if run.writer.lock().is_fenced() {
            acked += run.acked.lock().len();
            run.check()
                .map_err(|e| format!("incarnation {incarnation}: {e}"))?;
            incarnation += 1;
            run = Run::new((seed << 8) + incarnation);
        }
    }
    acked += run.acked.lock().len();
    run.check()?;
    Ok((acked, incarnation + 1))
}

#[test]
fn random_writers_fencers_and_faults_keep_every_acknowledged_write() {
    let (mut acked, mut streams) = (0, 0);
    for seed in 0..SEEDS {
        match run_seed(seed) {
            Ok((a, s)) => (acked, streams) = (acked + a, streams + s),
            Err(report) => panic!("seed {seed}: {report}"),
        }
    }
    // Guards against a vacuous run: many batches acknowledged, many streams sealed.
    eprintln!("model: {acked} batches acknowledged over {streams} streams");
    assert!(
        acked > 20 * SEEDS as usize && streams > 2 * SEEDS,
        "{acked} {streams}"
    );
}
