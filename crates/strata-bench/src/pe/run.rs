//! Runs one PE workload.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{format_row, PeWorkload};
use crate::client::{key_after, Client, RowWrite, Target};
use crate::driver::{run_phase, PhasePlan, PhaseReport, Recorder};
use crate::error::{BenchError, BenchResult};
use crate::keys::ValueSource;
use crate::phase::derive_seed;

/// PE's qualifier for values.
const QUALIFIER: &[u8] = b"0";
/// Qualifier of the increment workload's counters, apart from the values so that an
/// increment after a write workload does not meet a 1 KB value where it expects 8 bytes.
const COUNTER_QUALIFIER: &[u8] = b"counter";
/// Rows per call of the full-table scan.
const SCAN_PAGE: usize = 100;

/// PE's options that the workloads use.
#[derive(Debug, Clone)]
pub struct PeOptions {
    /// Rows per client (thread), as PE's `--rows`.
    pub rows: u64,
    /// Rows the random workloads draw from, when not `rows × threads`: reads over a table
    /// written with other `--rows`/`--threads` (say, loaded by 16 threads, read by 5).
    pub key_rows: Option<u64>,
    pub threads: usize,
    pub value_size: usize,
    /// Rows per write call (PE's client-side write buffer).
    pub batch_size: usize,
    /// Keys per call of `multiGet`.
    pub multi_get: usize,
    pub seed: u64,
    pub quiet: bool,
}

impl PeOptions {
    /// Rows all clients handle together (`rows × threads`): the operations of a phase.
    pub fn total_rows(&self) -> u64 {
        self.rows.saturating_mul(self.threads as u64)
    }

    /// Rows the random workloads choose from: `key_rows`, else [`PeOptions::total_rows`].
    pub fn key_space(&self) -> u64 {
        self.key_rows.unwrap_or_else(|| self.total_rows())
    }

    fn validate(&self) -> BenchResult<()> {
        if self.rows == 0 || self.batch_size == 0 || self.multi_get == 0 || self.key_space() == 0 {
            return Err(BenchError::Config(
                "--rows, --key-rows, --batch-size and --multi-get must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// The keys at which to split a table of `total` PE rows into `regions` regions.
pub fn split_keys(total: u64, regions: u64) -> Vec<Vec<u8>> {
    (1..regions.max(1))
        .map(|i| format_row(total / regions * i))
        .collect()
}

/// Runs `workload` against `target` and returns its measurements.
pub fn run(
    target: &dyn Target,
    workload: PeWorkload,
    opts: &PeOptions,
) -> BenchResult<PhaseReport> {
    opts.validate()?;
    target.prepare_table()?;
    let plan = PhasePlan {
        name: workload.name().to_string(),
        threads: opts.threads,
        total_ops: opts.total_rows(),
        quiet: opts.quiet,
    };
    run_phase(target, &plan, |index, client, rec| {
        let mut pe = PeThread {
            opts,
            first: index as u64 * opts.rows,
            rng: SmallRng::seed_from_u64(derive_seed(opts.seed, index as u64 + 1)),
            values: ValueSource::new(
                derive_seed(opts.seed, 0xFA11 + index as u64),
                opts.value_size,
            ),
        };
        pe.run(workload, client, rec)
    })
}

/// One PE client: rows `first..first + rows` are its own.
struct PeThread<'a> {
    opts: &'a PeOptions,
    first: u64,
    rng: SmallRng,
    values: ValueSource,
}

impl PeThread<'_> {
    fn random_row(&mut self) -> u64 {
        self.rng.random_range(0..self.opts.key_space())
    }

    fn run(
        &mut self,
        w: PeWorkload,
        client: &mut dyn Client,
        rec: &mut Recorder,
    ) -> BenchResult<()> {
        match w {
            PeWorkload::SequentialWrite => self.write(client, rec, "write", false),
            PeWorkload::RandomWrite => self.write(client, rec, "write", true),
            PeWorkload::RandomRead => self.random_read(client, rec),
            PeWorkload::MultiGet => self.multi_get(client, rec),
            PeWorkload::Scan => self.full_scan(client, rec),
            PeWorkload::ScanRange10 => self.range_scans(client, rec, 10),
            PeWorkload::ScanRange100 => self.range_scans(client, rec, 100),
            PeWorkload::Increment => self.increment(client, rec),
            PeWorkload::HotIncrement => self.hot_increment(client, rec),
            PeWorkload::CheckAndPut => self.check_and_put(client, rec),
        }
    }

    fn write(
        &mut self,
        client: &mut dyn Client,
        rec: &mut Recorder,
        op: &'static str,
        random: bool,
    ) -> BenchResult<()> {
        let mut done = 0;
        while done < self.opts.rows {
            let n = (self.opts.rows - done).min(self.opts.batch_size as u64);
            let rows: Vec<RowWrite> = (done..done + n)
                .map(|i| {
                    let row = if random {
                        self.random_row()
                    } else {
                        self.first + i
                    };
                    RowWrite {
                        key: format_row(row),
                        columns: vec![(QUALIFIER.to_vec(), self.values.next_value().to_vec())],
                    }
                })
                .collect();
            rec.time(op, n, || client.write(&rows))?;
            done += n;
        }
        Ok(())
    }

    fn random_read(&mut self, client: &mut dyn Client, rec: &mut Recorder) -> BenchResult<()> {
        for _ in 0..self.opts.rows {
            let key = format_row(self.random_row());
            if rec.time("read", 1, || client.read(&key))?.is_none() {
                rec.miss("read", 1)?;
            }
        }
        Ok(())
    }

    fn multi_get(&mut self, client: &mut dyn Client, rec: &mut Recorder) -> BenchResult<()> {
        let mut done = 0;
        while done < self.opts.rows {
            let n = (self.opts.rows - done).min(self.opts.multi_get as u64);
            let keys: Vec<Vec<u8>> = (0..n).map(|_| format_row(self.random_row())).collect();
            let found = rec.time("multiGet", n, || client.read_many(&keys))?;
            rec.miss("multiGet", n.saturating_sub(found as u64))?;
            done += n;
        }
        Ok(())
    }

    /// Scans this client's own rows in pages; every row is one operation.
    fn full_scan(&mut self, client: &mut dyn Client, rec: &mut Recorder) -> BenchResult<()> {
        let stop = format_row(self.first + self.opts.rows);
        let mut start = format_row(self.first);
        let mut seen = 0u64;
        loop {
            let page = rec.time("scan", 0, || client.scan(&start, Some(&stop), SCAN_PAGE))?;
            rec.add_ops("scan", page.rows as u64)?;
            rec.rows("scan", page.rows as u64)?;
            seen += page.rows as u64;
            match page.last_key {
                Some(last) if page.rows == SCAN_PAGE => start = key_after(&last),
                _ => break,
            }
        }
        rec.miss("scan", self.opts.rows.saturating_sub(seen))
    }

    fn range_scans(
        &mut self,
        client: &mut dyn Client,
        rec: &mut Recorder,
        len: u64,
    ) -> BenchResult<()> {
        let op = if len == 10 {
            "scanRange10"
        } else {
            "scanRange100"
        };
        let highest_start = self.opts.key_space().saturating_sub(len);
        for _ in 0..self.opts.rows {
            let first = self.rng.random_range(0..=highest_start);
            let (start, stop) = (format_row(first), format_row(first + len));
            let limit = usize::try_from(len).unwrap_or(usize::MAX);
            let page = rec.time(op, 1, || client.scan(&start, Some(&stop), limit))?;
            rec.rows(op, page.rows as u64)?;
            let expected = len.min(self.opts.key_space());
            rec.miss(op, expected.saturating_sub(page.rows as u64))?;
        }
        Ok(())
    }

    fn increment(&mut self, client: &mut dyn Client, rec: &mut Recorder) -> BenchResult<()> {
        for i in 0..self.opts.rows {
            let key = format_row(self.first + i);
            let value = rec.time("increment", 1, || {
                client.increment(&key, COUNTER_QUALIFIER, 1)
            })?;
            if value < 1 {
                rec.miss("increment", 1)?;
            }
        }
        Ok(())
    }

    /// `--rows` increments of one cell that every client shares (row 0's counter). Each
    /// returned value must exceed the one before: the cell only grows.
    fn hot_increment(&mut self, client: &mut dyn Client, rec: &mut Recorder) -> BenchResult<()> {
        let key = format_row(0);
        let mut last = 0;
        for _ in 0..self.opts.rows {
            let value = rec.time("hotIncrement", 1, || {
                client.increment(&key, COUNTER_QUALIFIER, 1)
            })?;
            if value <= last {
                rec.miss("hotIncrement", 1)?;
            }
            last = value;
        }
        Ok(())
    }

    /// As PE: put the row's own key as the value, then check-and-put on that value.
    fn check_and_put(&mut self, client: &mut dyn Client, rec: &mut Recorder) -> BenchResult<()> {
        for i in 0..self.opts.rows {
            let key = format_row(self.first + i);
            let row = RowWrite {
                key: key.clone(),
                columns: vec![(QUALIFIER.to_vec(), key.clone())],
            };
            client.write(std::slice::from_ref(&row))?;
            let ok = rec.time("checkAndPut", 1, || {
                client.check_and_put(&key, QUALIFIER, &key, &key)
            })?;
            if !ok {
                rec.miss("checkAndPut", 1)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keys_divide_the_row_space() {
        let keys = split_keys(1000, 4);
        assert_eq!(
            keys,
            vec![format_row(250), format_row(500), format_row(750)]
        );
        assert!(split_keys(1000, 1).is_empty());
        assert!(split_keys(1000, 0).is_empty());
    }
}
