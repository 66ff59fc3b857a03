//! Tests of the filter language: parsing, errors and limits, evaluation, randomized checks.

mod errors;
mod eval;
mod fuzz;
mod parse;
mod scan;

use bytes::Bytes;
use strata_engine::{Cell, RowResult};

use super::{Comparator, RowOutcome};

/// A row of put cells given as (family, qualifier, timestamp, value).
pub(super) fn row(key: &str, cells: &[(&str, &str, i64, &str)]) -> RowResult {
    RowResult {
        row: Bytes::copy_from_slice(key.as_bytes()),
        cells: cells
            .iter()
            .map(|(f, q, ts, v)| {
                Cell::put(
                    key.as_bytes().to_vec(),
                    f.as_bytes().to_vec(),
                    q.as_bytes().to_vec(),
                    *ts,
                    v.as_bytes().to_vec(),
                )
            })
            .collect(),
    }
}

/// The cells of a kept row as (family, qualifier, timestamp, value) strings.
pub(super) fn cells_of(outcome: &RowOutcome) -> Vec<(String, String, i64, Vec<u8>)> {
    match outcome {
        RowOutcome::Keep(r) => r
            .cells
            .iter()
            .map(|c| {
                (
                    String::from_utf8_lossy(&c.family).into_owned(),
                    String::from_utf8_lossy(&c.qualifier).into_owned(),
                    c.timestamp,
                    c.value.to_vec(),
                )
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A comparator from its `type:value` text.
pub(super) fn cmp(text: &str) -> Comparator {
    Comparator::parse(text.as_bytes()).unwrap()
}

/// A small seeded generator (splitmix64) for the randomized tests.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(super) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub(super) fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }

    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
