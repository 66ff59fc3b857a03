//! Check-and-mutate: writes to a row applied only if one of its columns holds an expected
//! value, atomically with the check.

use bytes::Bytes;
use strata_server::{Check, CompareOp};

use crate::mutation::Mutation;

/// A conditional row mutation.
///
/// The comparison is HBase's: [`if_matches`](CheckAndMutate::if_matches) with `op` passes
/// when `value op stored` holds (the given value on the left), so `CompareOp::Less` passes
/// when the given value is less than the stored one.
///
/// ```
/// use strata_db::{CheckAndMutate, Put};
/// let claim = CheckAndMutate::new("job7", "cf", "owner")
///     .if_missing()
///     .then(Put::new("job7").add("cf", "owner", "worker-3"));
/// # let _ = claim;
/// ```
#[derive(Debug, Clone)]
pub struct CheckAndMutate {
    pub(crate) check: Check,
    pub(crate) mutations: Vec<Mutation>,
}

impl CheckAndMutate {
    /// Checks column `family:qualifier` of `row`; by default the check requires the column
    /// to be missing (see the `if_` methods).
    pub fn new(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
    ) -> Self {
        CheckAndMutate {
            check: Check {
                row: row.into(),
                family: family.into(),
                qualifier: qualifier.into(),
                op: CompareOp::Equal,
                value: None,
            },
            mutations: Vec::new(),
        }
    }

    /// Passes when the column's newest value equals `value`.
    pub fn if_equals(self, value: impl Into<Bytes>) -> Self {
        self.if_matches(CompareOp::Equal, value)
    }

    /// Passes when the column has no visible value.
    pub fn if_missing(mut self) -> Self {
        self.check.op = CompareOp::Equal;
        self.check.value = None;
        self
    }

    /// Passes when `value op newest stored value` holds (HBase's operand order).
    pub fn if_matches(mut self, op: CompareOp, value: impl Into<Bytes>) -> Self {
        self.check.op = op;
        self.check.value = Some(value.into());
        self
    }

    /// Adds a mutation (in the checked row) to apply when the check passes.
    pub fn then(mut self, mutation: impl Into<Mutation>) -> Self {
        self.mutations.push(mutation.into());
        self
    }
}
