//! Evaluation: the composite filters (chain, interleave, condition, sink) and the dispatch
//! to the simple ones.

use std::cmp::Ordering;

use super::compile::Node;
use super::{per_row, transform, FilterCell, Sampler};

/// Bigtable's cell order: family, then qualifier ascending, then timestamp descending.
pub fn bigtable_order(a: &FilterCell, b: &FilterCell) -> Ordering {
    a.family
        .cmp(&b.family)
        .then_with(|| a.qualifier.cmp(&b.qualifier))
        .then_with(|| b.timestamp_micros.cmp(&a.timestamp_micros))
}

/// Sorts into Bigtable order, keeping equal cells (duplicates) in their current order.
/// The input is a few sorted runs glued together, which the stable sort merges cheaply.
pub fn sort_bigtable_order(cells: &mut [FilterCell]) {
    cells.sort_by(bigtable_order);
}

/// The cell copies one evaluation may make: a fixed allowance plus a multiple of the row.
/// Interleaves and sinks copy cells, and a chain of interleaves multiplies the copies (a
/// chain of 40 `interleave(pass_all, pass_all)` would make 2^40 per cell), so copies are
/// counted and the evaluation stops once the budget is spent.
pub const COPY_ALLOWANCE: usize = 1 << 20;

/// How many copies per input cell the budget adds to [`COPY_ALLOWANCE`].
pub const COPIES_PER_CELL: usize = 16;

/// One evaluation of a filter on one row.
pub struct EvalContext<'a> {
    key: &'a [u8],
    sampler: &'a mut dyn Sampler,
    /// Cells that reached a `sink`: they go to the final result directly.
    sunk: Vec<FilterCell>,
    /// Cell copies still allowed; `None` once the budget was exceeded.
    copies_left: Option<usize>,
}

impl<'a> EvalContext<'a> {
    /// An evaluation on row `key` of `input_cells` cells.
    pub fn new(key: &'a [u8], input_cells: usize, sampler: &'a mut dyn Sampler) -> Self {
        let budget = COPY_ALLOWANCE.saturating_add(input_cells.saturating_mul(COPIES_PER_CELL));
        EvalContext {
            key,
            sampler,
            sunk: Vec::new(),
            copies_left: Some(budget),
        }
    }

    /// True once the evaluation ran out of its copy budget (its result is then incomplete).
    pub fn exhausted(&self) -> bool {
        self.copies_left.is_none()
    }

    /// The cells that reached a sink, in arrival order.
    pub fn into_sunk(self) -> Vec<FilterCell> {
        self.sunk
    }

    /// Spends `copies` from the budget; false (and exhausted from now on) if it runs out.
    fn charge(&mut self, copies: usize) -> bool {
        self.copies_left = self.copies_left.and_then(|left| left.checked_sub(copies));
        self.copies_left.is_some()
    }

    /// What `node` passes on to its parent for `cells` (in Bigtable order).
    pub fn eval(&mut self, node: &Node, cells: Vec<FilterCell>) -> Vec<FilterCell> {
        if self.exhausted() {
            return Vec::new();
        }
        match node {
            Node::PassAll => cells,
            Node::BlockAll => Vec::new(),
            Node::Sink => {
                if self.charge(cells.len()) {
                    self.sunk.extend(cells);
                }
                Vec::new()
            }
            Node::Chain(filters) => self.chain(filters, cells),
            Node::Interleave(filters) => self.interleave(filters, &cells),
            Node::Condition {
                predicate,
                on_true,
                on_false,
            } => self.condition(predicate, on_true, on_false, cells),
            Node::RowKeyRegex(regex) => match regex.full_match(self.key) {
                true => cells,
                false => Vec::new(),
            },
            Node::CellsPerRowOffset(n) => per_row::skip_cells(cells, *n),
            Node::CellsPerRowLimit(n) => per_row::limit_cells(cells, *n),
            Node::CellsPerColumnLimit(n) => per_row::limit_per_column(cells, *n),
            Node::RowSample(p) => per_row::sample_row(cells, *p, self.sampler),
            Node::StripValue => transform::strip_values(cells),
            Node::Label(label) => transform::apply_label(cells, label),
            Node::Keep(test) => test.keep_matching(cells),
        }
    }

    /// Each filter runs on the previous one's output; an empty chain passes everything.
    fn chain(&mut self, filters: &[Node], mut cells: Vec<FilterCell>) -> Vec<FilterCell> {
        for filter in filters {
            if cells.is_empty() {
                // Nothing can come out of an empty row, and nothing reaches a later sink.
                break;
            }
            cells = self.eval(filter, cells);
        }
        cells
    }

    /// Every filter runs on its own copy; the outputs are pooled, duplicates kept.
    fn interleave(&mut self, filters: &[Node], cells: &[FilterCell]) -> Vec<FilterCell> {
        let mut pooled = Vec::new();
        for filter in filters {
            if !self.charge(cells.len()) {
                return Vec::new();
            }
            let branch = self.eval(filter, cells.to_vec());
            if !self.charge(branch.len()) {
                return Vec::new();
            }
            pooled.extend(branch);
        }
        sort_bigtable_order(&mut pooled);
        pooled
    }

    /// The predicate sees the row; its output only decides the branch.
    fn condition(
        &mut self,
        predicate: &Node,
        on_true: &Node,
        on_false: &Node,
        cells: Vec<FilterCell>,
    ) -> Vec<FilterCell> {
        // The compiler keeps sinks out of conditions, so the predicate cannot sink cells.
        if !self.charge(cells.len()) {
            return Vec::new();
        }
        let matched = !self.eval(predicate, cells.clone()).is_empty();
        let branch = if matched { on_true } else { on_false };
        self.eval(branch, cells)
    }
}
