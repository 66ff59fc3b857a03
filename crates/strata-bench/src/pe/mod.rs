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

/// A PerformanceEvaluation workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeWorkload {
    SequentialWrite,
    RandomWrite,
    RandomRead,
    Scan,
    ScanRange10,
    ScanRange100,
    Increment,
    /// Every client increments the same cell of one row: a hot counter.
    HotIncrement,
    CheckAndPut,
    MultiGet,
}

impl PeWorkload {
    pub const ALL: [PeWorkload; 10] = [
        PeWorkload::SequentialWrite,
        PeWorkload::RandomWrite,
        PeWorkload::RandomRead,
        PeWorkload::Scan,
        PeWorkload::ScanRange10,
        PeWorkload::ScanRange100,
        PeWorkload::Increment,
        PeWorkload::HotIncrement,
        PeWorkload::CheckAndPut,
        PeWorkload::MultiGet,
    ];

    /// PE's spelling.
    pub fn name(self) -> &'static str {
        match self {
            PeWorkload::SequentialWrite => "sequentialWrite",
            PeWorkload::RandomWrite => "randomWrite",
            PeWorkload::RandomRead => "randomRead",
            PeWorkload::Scan => "scan",
            PeWorkload::ScanRange10 => "scanRange10",
            PeWorkload::ScanRange100 => "scanRange100",
            PeWorkload::Increment => "increment",
            PeWorkload::HotIncrement => "hotIncrement",
            PeWorkload::CheckAndPut => "checkAndPut",
            PeWorkload::MultiGet => "multiGet",
        }
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
            .into_iter()
            .find(|w| w.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names: Vec<_> = PeWorkload::ALL.iter().map(|w| w.name()).collect();
                BenchError::Config(format!(
                    "unknown PE workload {s:?}; choose one of {}",
                    names.join(", ")
                ))
            })
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
        for w in PeWorkload::ALL {
            assert_eq!(w.name().parse::<PeWorkload>().unwrap(), w);
        }
        assert!("randomReads".parse::<PeWorkload>().is_err());
    }
}
