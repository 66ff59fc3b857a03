//! From the protobuf `RowFilter` to a checked tree of [`Node`]s.
//!
//! Runs only after [`super::limits::check`], so the recursion here is at most
//! [`super::limits::MAX_NESTING`] deep. Every error names the field path.

use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::row_filter::Filter;
use tonic::Status;

use super::cell_predicate::CellPredicate;
use super::ranges::{value_range, ColumnRange, TimestampRange};
use super::regex::{BytesRegex, RegexBudget};
use super::transform::check_label;

/// A compiled filter.
#[derive(Debug, Clone)]
pub enum Node {
    PassAll,
    BlockAll,
    Sink,
    Chain(Vec<Node>),
    Interleave(Vec<Node>),
    Condition {
        predicate: Box<Node>,
        on_true: Box<Node>,
        on_false: Box<Node>,
    },
    RowKeyRegex(BytesRegex),
    /// The per-cell true filters.
    Keep(CellPredicate),
    CellsPerRowOffset(usize),
    CellsPerRowLimit(usize),
    CellsPerColumnLimit(usize),
    RowSample(f64),
    StripValue,
    Label(String),
}

/// A compiled sub-tree and whether it may label cells (a chain allows one such sub-filter).
struct Compiled {
    node: Node,
    labels: bool,
}

/// Where in the tree the compiler is.
struct Place<'a> {
    path: String,
    in_condition: bool,
    budget: &'a RegexBudget,
}

pub fn compile(filter: &pb::RowFilter, field: &str, budget: &RegexBudget) -> Result<Node, Status> {
    let place = Place {
        path: field.to_owned(),
        in_condition: false,
        budget,
    };
    Ok(compile_at(filter, &place)?.node)
}

fn compile_at(filter: &pb::RowFilter, place: &Place) -> Result<Compiled, Status> {
    let Some(kind) = &filter.filter else {
        return Ok(leaf(Node::PassAll));
    };
    let node = match kind {
        Filter::Chain(chain) => return compile_chain(&chain.filters, place),
        Filter::Interleave(interleave) => return compile_interleave(&interleave.filters, place),
        Filter::Condition(condition) => return compile_condition(condition, place),
        Filter::ApplyLabelTransformer(label) => return compile_label(label, place),
        Filter::Sink(flag) => compile_sink(*flag, place)?,
        Filter::PassAllFilter(flag) => flagged(*flag, place, "pass_all_filter", Node::PassAll)?,
        Filter::BlockAllFilter(flag) => flagged(*flag, place, "block_all_filter", Node::BlockAll)?,
        Filter::StripValueTransformer(flag) => {
            flagged(*flag, place, "strip_value_transformer", Node::StripValue)?
        }
        Filter::RowKeyRegexFilter(p) => Node::RowKeyRegex(regex(p, place, "row_key_regex_filter")?),
        Filter::FamilyNameRegexFilter(p) => {
            keep(CellPredicate::FamilyRegex(family_regex(p, place)?))
        }
        Filter::ColumnQualifierRegexFilter(p) => keep(CellPredicate::QualifierRegex(regex(
            p,
            place,
            "column_qualifier_regex_filter",
        )?)),
        Filter::ValueRegexFilter(p) => keep(CellPredicate::ValueRegex(regex(
            p,
            place,
            "value_regex_filter",
        )?)),
        Filter::ColumnRangeFilter(range) => keep(CellPredicate::ColumnRange(
            ColumnRange::new(range).map_err(|e| invalid(place, "column_range_filter", &e))?,
        )),
        Filter::TimestampRangeFilter(range) => keep(CellPredicate::TimestampRange(
            TimestampRange::new(range).map_err(|e| invalid(place, "timestamp_range_filter", &e))?,
        )),
        Filter::ValueRangeFilter(range) => keep(CellPredicate::ValueRange(value_range(range))),
        Filter::CellsPerRowOffsetFilter(n) => {
            Node::CellsPerRowOffset(count(*n, place, "cells_per_row_offset_filter")?)
        }
        Filter::CellsPerRowLimitFilter(n) => {
            Node::CellsPerRowLimit(count(*n, place, "cells_per_row_limit_filter")?)
        }
        Filter::CellsPerColumnLimitFilter(n) => {
            Node::CellsPerColumnLimit(count(*n, place, "cells_per_column_limit_filter")?)
        }
        Filter::RowSampleFilter(p) => Node::RowSample(probability(*p, place)?),
    };
    Ok(leaf(node))
}

fn leaf(node: Node) -> Compiled {
    Compiled {
        node,
        labels: false,
    }
}

fn keep(predicate: CellPredicate) -> Node {
    Node::Keep(predicate)
}

/// `pass_all_filter`, `block_all_filter`, `strip_value_transformer` and `sink` are booleans
/// that must be true.
fn flagged(flag: bool, place: &Place, name: &str, node: Node) -> Result<Node, Status> {
    if flag {
        Ok(node)
    } else {
        Err(invalid(place, name, "must be true when set"))
    }
}

fn compile_sink(flag: bool, place: &Place) -> Result<Node, Status> {
    if place.in_condition {
        return Err(invalid(place, "sink", "not allowed inside a condition"));
    }
    flagged(flag, place, "sink", Node::Sink)
}

fn compile_label(label: &str, place: &Place) -> Result<Compiled, Status> {
    check_label(label).map_err(|e| invalid(place, "apply_label_transformer", &e))?;
    Ok(Compiled {
        node: Node::Label(label.to_owned()),
        labels: true,
    })
}

fn regex(pattern: &[u8], place: &Place, name: &str) -> Result<BytesRegex, Status> {
    BytesRegex::new(pattern, place.budget).map_err(|e| invalid(place, name, &e))
}

/// Bigtable rejects a `:` anywhere in a family regex, even escaped.
fn family_regex(pattern: &str, place: &Place) -> Result<BytesRegex, Status> {
    const NAME: &str = "family_name_regex_filter";
    if pattern.contains(':') {
        return Err(invalid(place, NAME, "the pattern must not contain ':'"));
    }
    regex(pattern.as_bytes(), place, NAME)
}

fn count(n: i32, place: &Place, name: &str) -> Result<usize, Status> {
    usize::try_from(n).map_err(|_| invalid(place, name, &format!("{n} is negative")))
}

fn probability(p: f64, place: &Place) -> Result<f64, Status> {
    // Written so that NaN fails too.
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        let why = format!("{p} is not a probability strictly between 0 and 1");
        Err(invalid(place, "row_sample_filter", &why))
    }
}

fn compile_chain(filters: &[pb::RowFilter], place: &Place) -> Result<Compiled, Status> {
    let mut nodes = Vec::with_capacity(filters.len());
    let mut labelled = 0;
    for (i, sub) in filters.iter().enumerate() {
        let compiled = compile_at(sub, &place.child(&format!("chain.filters[{i}]")))?;
        labelled += usize::from(compiled.labels);
        nodes.push(compiled.node);
    }
    if labelled > 1 {
        let why = "at most one sub-filter of a chain may contain an apply_label_transformer";
        return Err(invalid(place, "chain", why));
    }
    Ok(Compiled {
        node: Node::Chain(nodes),
        labels: labelled > 0,
    })
}

fn compile_interleave(filters: &[pb::RowFilter], place: &Place) -> Result<Compiled, Status> {
    let mut nodes = Vec::with_capacity(filters.len());
    let mut labels = false;
    for (i, sub) in filters.iter().enumerate() {
        let compiled = compile_at(sub, &place.child(&format!("interleave.filters[{i}]")))?;
        labels |= compiled.labels;
        nodes.push(compiled.node);
    }
    Ok(Compiled {
        node: Node::Interleave(nodes),
        labels,
    })
}

fn compile_condition(
    condition: &pb::row_filter::Condition,
    place: &Place,
) -> Result<Compiled, Status> {
    let branch = |filter: &Option<Box<pb::RowFilter>>, name: &str, missing: Node| {
        let mut inner = place.child(&format!("condition.{name}"));
        inner.in_condition = true;
        match filter {
            Some(f) => compile_at(f, &inner),
            None => Ok(leaf(missing)),
        }
    };
    let predicate = branch(
        &condition.predicate_filter,
        "predicate_filter",
        Node::PassAll,
    )?;
    let on_true = branch(&condition.true_filter, "true_filter", Node::BlockAll)?;
    let on_false = branch(&condition.false_filter, "false_filter", Node::BlockAll)?;
    Ok(Compiled {
        // The predicate's labels never reach the output.
        labels: on_true.labels || on_false.labels,
        node: Node::Condition {
            predicate: Box::new(predicate.node),
            on_true: Box::new(on_true.node),
            on_false: Box::new(on_false.node),
        },
    })
}

impl<'a> Place<'a> {
    fn child(&self, step: &str) -> Place<'a> {
        Place {
            path: format!("{}.{step}", self.path),
            in_condition: self.in_condition,
            budget: self.budget,
        }
    }
}

fn invalid(place: &Place, name: &str, why: &str) -> Status {
    Status::invalid_argument(format!("{}.{name}: {why}", place.path))
}
