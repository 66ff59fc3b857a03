//! YCSB's core workloads A–F: the operation mix and the request distribution of each, as
//! YCSB's bundled workload files define them.

use std::str::FromStr;

use crate::error::BenchError;

/// How keys are chosen for reads, updates and scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Distribution {
    /// YCSB's scrambled zipfian (constant 0.99).
    Zipfian,
    Uniform,
    /// Zipfian from the newest record backwards.
    Latest,
}

/// One operation of the run phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

impl Operation {
    /// The name in reports (YCSB's, in lower case).
    pub fn name(self) -> &'static str {
        match self {
            Operation::Read => "read",
            Operation::Update => "update",
            Operation::Insert => "insert",
            Operation::Scan => "scan",
            Operation::ReadModifyWrite => "read-modify-write",
        }
    }
}

/// The proportions of each operation; they add up to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mix {
    pub read: f64,
    pub update: f64,
    pub insert: f64,
    pub scan: f64,
    pub read_modify_write: f64,
}

impl Mix {
    /// The operation for a uniform draw `u` in [0, 1).
    pub fn choose(&self, u: f64) -> Operation {
        let steps = [
            (self.read, Operation::Read),
            (self.update, Operation::Update),
            (self.insert, Operation::Insert),
            (self.scan, Operation::Scan),
        ];
        let mut edge = 0.0;
        for (share, op) in steps {
            edge += share;
            if u < edge {
                return op;
            }
        }
        Operation::ReadModifyWrite
    }
}

/// One of YCSB's core workloads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoreWorkload {
    /// `a` to `f`.
    pub letter: char,
    pub mix: Mix,
    pub distribution: Distribution,
}

const fn mix(read: f64, update: f64, insert: f64, scan: f64, rmw: f64) -> Mix {
    Mix {
        read,
        update,
        insert,
        scan,
        read_modify_write: rmw,
    }
}

impl FromStr for CoreWorkload {
    type Err = BenchError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        use Distribution::{Latest, Zipfian};
        let letter = s
            .trim_start_matches("workload")
            .to_ascii_lowercase()
            .chars()
            .next()
            .filter(|_| s.len() == 1 || s.len() == "workloada".len())
            .unwrap_or('?');
        let (mix, distribution) = match letter {
            'a' => (mix(0.5, 0.5, 0.0, 0.0, 0.0), Zipfian),
            'b' => (mix(0.95, 0.05, 0.0, 0.0, 0.0), Zipfian),
            'c' => (mix(1.0, 0.0, 0.0, 0.0, 0.0), Zipfian),
            'd' => (mix(0.95, 0.0, 0.05, 0.0, 0.0), Latest),
            'e' => (mix(0.0, 0.0, 0.05, 0.95, 0.0), Zipfian),
            'f' => (mix(0.5, 0.0, 0.0, 0.0, 0.5), Zipfian),
            _ => {
                return Err(BenchError::Config(format!(
                    "unknown YCSB workload {s:?}: use a, b, c, d, e or f"
                )))
            }
        };
        Ok(CoreWorkload {
            letter,
            mix,
            distribution,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::HashMap;

    fn shares(w: &str) -> HashMap<Operation, f64> {
        let w: CoreWorkload = w.parse().unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        let n = 200_000;
        let mut counts = HashMap::new();
        for _ in 0..n {
            *counts.entry(w.mix.choose(rng.random())).or_insert(0.0) += 1.0;
        }
        counts.values_mut().for_each(|c| *c /= n as f64);
        counts
    }

    fn near(counts: &HashMap<Operation, f64>, op: Operation, want: f64) {
        let got = counts.get(&op).copied().unwrap_or(0.0);
        assert!((got - want).abs() < 0.01, "{op:?}: {got} vs {want}");
    }

    #[test]
    fn proportions_match_ycsb() {
        use Operation::*;
        let a = shares("a");
        near(&a, Read, 0.5);
        near(&a, Update, 0.5);
        let b = shares("B");
        near(&b, Read, 0.95);
        near(&b, Update, 0.05);
        near(&shares("c"), Read, 1.0);
        let d = shares("workloadd");
        near(&d, Read, 0.95);
        near(&d, Insert, 0.05);
        let e = shares("e");
        near(&e, Scan, 0.95);
        near(&e, Insert, 0.05);
        let f = shares("f");
        near(&f, Read, 0.5);
        near(&f, ReadModifyWrite, 0.5);
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn distributions_match_ycsb() {
        let d: CoreWorkload = "d".parse().unwrap();
        assert_eq!(d.distribution, Distribution::Latest);
        let a: CoreWorkload = "a".parse().unwrap();
        assert_eq!(a.distribution, Distribution::Zipfian);
    }

    #[test]
    fn unknown_workloads_are_refused() {
        for bad in ["g", "", "ab", "workloadz"] {
            assert!(bad.parse::<CoreWorkload>().is_err(), "{bad}");
        }
    }
}
