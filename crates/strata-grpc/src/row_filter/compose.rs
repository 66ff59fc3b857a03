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

/// One evaluation of a filter on one row.
pub struct EvalContext<'a> {
    key: &'a [u8],
    sampler: &'a mut dyn Sampler,
    /// Cells that reached a `sink`: they go to the final result directly.
    sunk: Vec<FilterCell>,
}

impl<'a> EvalContext<'a> {
    pub fn new(key: &'a [u8], sampler: &'a mut dyn Sampler) -> EvalContext<'a> {
        EvalContext {
            key,
            sampler,
            sunk: Vec::new(),
        }
    }

    /// The cells that reached a sink, in arrival order.
    pub fn into_sunk(self) -> Vec<FilterCell> {
        self.sunk
    }

    /// What `node` passes on to its parent for `cells` (in Bigtable order).
    pub fn eval(&mut self, node: &Node, cells: Vec<FilterCell>) -> Vec<FilterCell> {
        match node {
            Node::PassAll => cells,
            Node::BlockAll => Vec::new(),
            Node::Sink => {
                self.sunk.extend(cells);
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
            pooled.extend(self.eval(filter, cells.to_vec()));
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
        let matched = !self.eval(predicate, cells.clone()).is_empty();
        let branch = if matched { on_true } else { on_false };
        self.eval(branch, cells)
    }
}
