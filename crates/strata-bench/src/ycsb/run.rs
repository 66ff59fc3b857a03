//! The load and run phases of a YCSB core workload.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::counter::AcknowledgedCounter;
use super::generator::{uniform, ScrambledZipfian, SkewedLatest};
use super::keys::{field_name, record_key};
use super::workload::{CoreWorkload, Distribution, Operation};
use crate::client::{Client, RowWrite, Target};
use crate::driver::{run_phase, PhasePlan, PhaseReport, Recorder};
use crate::error::{BenchError, BenchResult};
use crate::keys::ValueSource;
use crate::phase::derive_seed;

/// YCSB's properties, with YCSB's defaults where it has them.
#[derive(Debug, Clone)]
pub struct YcsbOptions {
    /// `recordcount`: records inserted by the load phase (and present before the run).
    pub records: u64,
    /// `operationcount`: operations of the run phase, over all threads.
    pub operations: u64,
    /// `fieldcount` (10).
    pub field_count: usize,
    /// `fieldlength` (100 bytes).
    pub field_length: usize,
    /// `maxscanlength` (100); scan lengths are uniform in 1..=max.
    pub max_scan_length: u64,
    /// Overrides the workload's `requestdistribution`.
    pub distribution: Option<Distribution>,
    /// Records per write call in the load phase.
    pub batch_size: usize,
    pub threads: usize,
    pub seed: u64,
    pub quiet: bool,
}

impl YcsbOptions {
    fn validate(&self) -> BenchResult<()> {
        if self.records == 0 || self.field_count == 0 || self.batch_size == 0 {
            return Err(BenchError::Config(
                "--records, --field-count and --batch-size must be at least 1".into(),
            ));
        }
        if self.max_scan_length == 0 {
            return Err(BenchError::Config(
                "--max-scan-length must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// `count` items split over `threads`: the range of thread `index`.
pub fn share(count: u64, threads: usize, index: usize) -> std::ops::Range<u64> {
    let (n, i) = (threads as u64, index as u64);
    let start = i * (count / n) + i.min(count % n);
    start..start + count / n + u64::from(i < count % n)
}

/// A record with every field.
fn full_record(n: u64, opts: &YcsbOptions, values: &mut ValueSource) -> RowWrite {
    RowWrite {
        key: record_key(n),
        columns: (0..opts.field_count)
            .map(|i| (field_name(i), values.next_value().to_vec()))
            .collect(),
    }
}

/// The load phase: inserts records `0..records`.
pub fn load(target: &dyn Target, opts: &YcsbOptions) -> BenchResult<PhaseReport> {
    opts.validate()?;
    target.prepare_table()?;
    let plan = PhasePlan {
        name: "ycsb load".into(),
        threads: opts.threads,
        total_ops: opts.records,
        quiet: opts.quiet,
    };
    run_phase(target, &plan, |index, client, rec| {
        let mut values = ValueSource::new(derive_seed(opts.seed, index as u64), opts.field_length);
        let range = share(opts.records, opts.threads, index);
        let numbers: Vec<u64> = range.collect();
        for chunk in numbers.chunks(opts.batch_size) {
            let rows: Vec<RowWrite> = chunk
                .iter()
                .map(|&n| full_record(n, opts, &mut values))
                .collect();
            rec.time("insert", rows.len() as u64, || client.write(&rows))?;
        }
        Ok(())
    })
}

/// Chooses record numbers for reads, updates and scans.
enum KeyChooser {
    Zipfian(ScrambledZipfian),
    Uniform(u64),
    Latest(SkewedLatest),
}

impl KeyChooser {
    fn new(
        distribution: Distribution,
        opts: &YcsbOptions,
        expected_inserts: u64,
        last: u64,
    ) -> Self {
        match distribution {
            // Like YCSB, the zipfian space includes the inserts expected during the run;
            // numbers not inserted yet are drawn again.
            Distribution::Zipfian => {
                KeyChooser::Zipfian(ScrambledZipfian::new(0, opts.records + expected_inserts))
            }
            Distribution::Uniform => KeyChooser::Uniform(opts.records - 1),
            Distribution::Latest => KeyChooser::Latest(SkewedLatest::new(last)),
        }
    }

    fn next(&mut self, counter: &AcknowledgedCounter, rng: &mut SmallRng) -> u64 {
        let last = counter.last();
        match self {
            KeyChooser::Zipfian(z) => loop {
                let n = z.next(rng);
                if n <= last {
                    return n;
                }
            },
            KeyChooser::Uniform(max) => uniform(rng, 0, *max),
            KeyChooser::Latest(l) => l.next(last, rng),
        }
    }
}

/// One thread's state in the run phase.
struct Worker<'a> {
    opts: &'a YcsbOptions,
    counter: &'a AcknowledgedCounter,
    chooser: KeyChooser,
    rng: SmallRng,
    values: ValueSource,
}

impl Worker<'_> {
    fn one_field(&mut self, key: Vec<u8>) -> RowWrite {
        let field = self.rng.random_range(0..self.opts.field_count);
        RowWrite {
            key,
            columns: vec![(field_name(field), self.values.next_value().to_vec())],
        }
    }

    fn step(
        &mut self,
        op: Operation,
        client: &mut dyn Client,
        rec: &mut Recorder,
    ) -> BenchResult<()> {
        let name = op.name();
        match op {
            Operation::Insert => {
                let n = self.counter.next();
                let row = full_record(n, self.opts, &mut self.values);
                rec.time(name, 1, || client.write(std::slice::from_ref(&row)))?;
                self.counter.acknowledge(n);
            }
            Operation::Read => {
                let key = record_key(self.chooser.next(self.counter, &mut self.rng));
                if rec.time(name, 1, || client.read(&key))?.is_none() {
                    rec.miss(name, 1)?;
                }
            }
            Operation::Update => {
                let key = record_key(self.chooser.next(self.counter, &mut self.rng));
                let row = self.one_field(key);
                rec.time(name, 1, || client.write(std::slice::from_ref(&row)))?;
            }
            Operation::Scan => {
                let key = record_key(self.chooser.next(self.counter, &mut self.rng));
                let len = uniform(&mut self.rng, 1, self.opts.max_scan_length);
                let limit = usize::try_from(len).unwrap_or(usize::MAX);
                let found = rec.time(name, 1, || client.scan(&key, None, limit))?;
                rec.rows(name, found.rows as u64)?;
                // The start key exists, so an empty scan found nothing it should have.
                if found.rows == 0 {
                    rec.miss(name, 1)?;
                }
            }
            Operation::ReadModifyWrite => {
                let key = record_key(self.chooser.next(self.counter, &mut self.rng));
                let row = self.one_field(key.clone());
                let found = rec.time(name, 1, || {
                    let found = client.read(&key)?;
                    client.write(std::slice::from_ref(&row))?;
                    Ok(found)
                })?;
                if found.is_none() {
                    rec.miss(name, 1)?;
                }
            }
        }
        Ok(())
    }
}

/// The run phase of `workload`; expects the records of a load phase with the same options.
pub fn run(
    target: &dyn Target,
    workload: &CoreWorkload,
    opts: &YcsbOptions,
) -> BenchResult<PhaseReport> {
    opts.validate()?;
    let distribution = opts.distribution.unwrap_or(workload.distribution);
    let expected_inserts = (opts.operations as f64 * workload.mix.insert * 2.0) as u64;
    let counter = AcknowledgedCounter::new(opts.records);
    let plan = PhasePlan {
        name: format!("ycsb-{} run", workload.letter),
        threads: opts.threads,
        total_ops: opts.operations,
        quiet: opts.quiet,
    };
    run_phase(target, &plan, |index, client, rec| {
        let seed = derive_seed(opts.seed, 0x5C5B_0000 + index as u64);
        let mut worker = Worker {
            opts,
            counter: &counter,
            chooser: KeyChooser::new(distribution, opts, expected_inserts, counter.last()),
            rng: SmallRng::seed_from_u64(seed),
            values: ValueSource::new(seed, opts.field_length),
        };
        for _ in share(opts.operations, opts.threads, index) {
            let op = workload.mix.choose(worker.rng.random());
            worker.step(op, client, rec)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_the_range_once() {
        let parts: Vec<_> = (0..3).map(|i| share(10, 3, i)).collect();
        assert_eq!(parts, vec![0..4, 4..7, 7..10]);
        assert_eq!(share(2, 4, 3), 2..2);
    }
}
