//! HBase PerformanceEvaluation-style workloads, under PE's names (accepted in any case).
//!
//! As in PE, rows are numbered and formatted as 26-digit zero-padded decimal keys, each
//! client (thread) handles `--rows` rows, random workloads draw from all
//! `rows × threads` rows, and values are `--value-size` bytes (1024 by default) in qualifier
//! `0` of the family.

pub mod run;

use std::str::FromStr;

use crate::error::BenchError;

pub use run::{run, PeOptions};

/// Length of PE's formatted row keys.
pub const ROW_LENGTH: usize = 26;

/// PE's key of row `n`: the number in decimal, zero-padded to 26 bytes.
pub fn format_row(n: u64) -> Vec<u8> {
    format!("{n:0ROW_LENGTH$}").into_bytes()
}

/// Declares the workloads in one table: the enum, [`PeWorkload::ALL`], each one's PE name and
/// its line of help. Parsing (`FromStr` and clap's `ValueEnum`) and `--help` are built from
/// `ALL`, and the dispatcher (`run::PeThread::run`) matches the enum exhaustively, so a row
/// added here is at once accepted, listed in the help and (the compiler insists) run.
macro_rules! pe_workloads {
    ($($variant:ident => $name:literal, $help:literal;)+) => {
        /// A PerformanceEvaluation workload.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum PeWorkload {
            $(#[doc = $help] $variant,)+
        }

        impl PeWorkload {
            /// Every workload, in the order the help lists them.
            pub const ALL: &'static [PeWorkload] = &[$(PeWorkload::$variant),+];

            /// PE's spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $(PeWorkload::$variant => $name,)+
                }
            }

            /// What each client (thread) does, for `--help` (no final period, as clap's
            /// other lines).
            pub fn help(self) -> &'static str {
                match self {
                    $(PeWorkload::$variant => $help,)+
                }
            }
        }
    };
}

pe_workloads! {
    SequentialWrite => "sequentialWrite",
        "Writes its own rows in order, --batch-size rows per call";
    RandomWrite => "randomWrite", "Writes --rows random rows";
    RandomRead => "randomRead", "--rows point reads of random rows";
    Scan => "scan", "Scans its own rows in pages of 100 rows";
    ScanRange10 => "scanRange10", "--rows scans of 10 consecutive rows from a random start";
    ScanRange100 => "scanRange100", "--rows scans of 100 consecutive rows from a random start";
    Increment => "increment", "Increments a counter (qualifier `counter`) in each of its own rows";
    HotIncrement => "hotIncrement",
        "--rows increments of one cell (row 0's counter) that every client shares: a hot counter";
    CheckAndPut => "checkAndPut",
        "Per row: writes the row key as the value, then check-and-put on that value";
    MultiGet => "multiGet", "--rows random reads in calls of --multi-get keys";
}

impl PeWorkload {
    /// The names, comma-separated, in [`PeWorkload::ALL`]'s order.
    pub fn names() -> String {
        let names: Vec<_> = PeWorkload::ALL.iter().map(|w| w.name()).collect();
        names.join(", ")
    }

    /// Whether the workload expects the rows of a write workload to be there.
    pub fn reads_existing_rows(self) -> bool {
        matches!(
            self,
            PeWorkload::RandomRead
                | PeWorkload::Scan
                | PeWorkload::ScanRange10
                | PeWorkload::ScanRange100
                | PeWorkload::MultiGet
        )
    }
}

impl FromStr for PeWorkload {
    type Err = BenchError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PeWorkload::ALL
            .iter()
            .copied()
            .find(|w| w.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                BenchError::Config(format!(
                    "unknown PE workload {s:?}; choose one of {}",
                    PeWorkload::names()
                ))
            })
    }
}

/// For clap: `--help` lists [`PeWorkload::ALL`] with each one's help, and clap parses the
/// names (case-insensitively where the argument sets `ignore_case`).
impl clap::ValueEnum for PeWorkload {
    fn value_variants<'a>() -> &'a [Self] {
        PeWorkload::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.help()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_26_digit_zero_padded() {
        assert_eq!(format_row(0), b"00000000000000000000000000");
        assert_eq!(format_row(1234), b"00000000000000000000001234");
        assert_eq!(format_row(u64::MAX).len(), ROW_LENGTH);
        assert!(format_row(9) < format_row(10));
    }

    #[test]
    fn names_parse_in_any_case() {
        assert_eq!(
            "RANDOMREAD".parse::<PeWorkload>().unwrap(),
            PeWorkload::RandomRead
        );
        assert_eq!(
            "scanrange100".parse::<PeWorkload>().unwrap(),
            PeWorkload::ScanRange100
        );
        for &w in PeWorkload::ALL {
            assert_eq!(w.name().parse::<PeWorkload>().unwrap(), w);
        }
        assert!("randomReads".parse::<PeWorkload>().is_err());
    }
}
