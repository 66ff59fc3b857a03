//! What a filter decides about one row: for each cell, dropped or kept (and how its value is
//! rewritten), or that the scan must stop.

use bytes::Bytes;

/// A value rewrite (HBase's `transformCell`). Rewrites chain: in an AND, each operand's
/// rewrite applies to the previous one's output, in operand order, as HBase's FilterList
/// does. KeyOnlyFilter is the only filter that rewrites, so four forms are closed under
/// chaining.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tx {
    /// The value unchanged.
    Same,
    /// An empty value.
    Empty,
    /// The value's length, as a 4-byte big-endian integer.
    Length,
    /// These 4 bytes (a length taken of an already rewritten value).
    Fixed([u8; 4]),
}

impl Tx {
    /// `self`, then `next`.
    pub(crate) fn then(self, next: Tx) -> Tx {
        match (self, next) {
            (first, Tx::Same) => first,
            (_, Tx::Empty) => Tx::Empty,
            (_, Tx::Fixed(b)) => Tx::Fixed(b),
            (Tx::Same, Tx::Length) => Tx::Length,
            (Tx::Empty, Tx::Length) => Tx::Fixed([0; 4]),
            (Tx::Length | Tx::Fixed(_), Tx::Length) => Tx::Fixed(4i32.to_be_bytes()),
        }
    }

    /// Applies the rewrite to `value`.
    pub(crate) fn apply(self, value: Bytes) -> Bytes {
        match self {
            Tx::Same => value,
            Tx::Empty => Bytes::new(),
            Tx::Length => {
                let len = i32::try_from(value.len()).unwrap_or(i32::MAX);
                Bytes::copy_from_slice(&len.to_be_bytes())
            }
            Tx::Fixed(b) => Bytes::copy_from_slice(&b),
        }
    }
}

/// A filter's decision on one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The scan ends before this row (HBase's `filterAllRemaining`).
    Stop,
    /// Per cell of the row, in order: `None` drops it, `Some(tx)` keeps it rewritten by `tx`.
    Cells(Vec<Option<Tx>>),
}

impl Verdict {
    /// Every one of `n` cells kept unchanged (a row-level filter accepting the row).
    pub(crate) fn all(n: usize) -> Verdict {
        Verdict::Cells(vec![Some(Tx::Same); n])
    }

    /// Every one of `n` cells dropped (a row-level filter rejecting the row).
    pub(crate) fn none(n: usize) -> Verdict {
        Verdict::Cells(vec![None; n])
    }

    /// Keeps cell `i` unchanged when `keep(i)`.
    pub(crate) fn select(n: usize, mut keep: impl FnMut(usize) -> bool) -> Verdict {
        Verdict::Cells((0..n).map(|i| keep(i).then_some(Tx::Same)).collect())
    }

    /// All or nothing.
    pub(crate) fn row(n: usize, accept: bool) -> Verdict {
        if accept {
            Verdict::all(n)
        } else {
            Verdict::none(n)
        }
    }
}
