//! From the protobuf `RowFilter` to a checked tree of [`Node`]s.
//!
//! Runs only after [`super::limits::check`], so the recursion here is at most
//! [`super::limits::MAX_NESTING`] deep. Every error names the field path.

use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::row_filter::Filter;
use tonic::Status;

use super::ranges::{value_range, ByteRange, ColumnRange, TimestampRange};
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
    FamilyRegex(BytesRegex),
    QualifierRegex(BytesRegex),
    ValueRegex(BytesRegex),
    ColumnRange(ColumnRange),
    TimestampRange(TimestampRange),
    ValueRange(ByteRange),
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
    let leaf = |node| {
        Ok(Compiled {
            node,
            labels: false,
        })
    };
    let Some(kind) = &filter.filter else {
        return leaf(Node::PassAll);
    };
    match kind {
        Filter::Chain(chain) => compile_chain(&chain.filters, place),
        Filter::Interleave(interleave) => compile_interleave(&interleave.filters, place),
        Filter::Condition(condition) => compile_condition(condition, place),
        Filter::Sink(flag) => {
            require_true(*flag, place, "sink")?;
            if place.in_condition {
                return Err(invalid(place, "sink", "not allowed inside a condition"));
            }
            leaf(Node::Sink)
        }
        Filter::PassAllFilter(flag) => {
            require_true(*flag, place, "pass_all_filter")?;
            leaf(Node::PassAll)
        }
        Filter::BlockAllFilter(flag) => {
            require_true(*flag, place, "block_all_filter")?;
            leaf(Node::BlockAll)
        }
        Filter::StripValueTransformer(flag) => {
            require_true(*flag, place, "strip_value_transformer")?;
            leaf(Node::StripValue)
        }
        Filter::ApplyLabelTransformer(label) => {
            check_label(label).map_err(|e| invalid(place, "apply_label_transformer", &e))?;
            Ok(Compiled {
                node: Node::Label(label.clone()),
                labels: true,
            })
        }
        other => leaf(compile_leaf(other, place)?),
    }
}

/// The filters that look at cells or rows without sub-filters.
fn compile_leaf(kind: &Filter, place: &Place) -> Result<Node, Status> {
    let regex = |pattern: &[u8], name: &str| {
        BytesRegex::new(pattern, place.budget).map_err(|e| invalid(place, name, &e))
    };
    let count = |n: i32, name: &str| {
        usize::try_from(n).map_err(|_| invalid(place, name, &format!("{n} is negative")))
    };
    Ok(match kind {
        Filter::RowKeyRegexFilter(p) => Node::RowKeyRegex(regex(p, "row_key_regex_filter")?),
        Filter::FamilyNameRegexFilter(p) => {
            if p.contains(':') {
                let why = "the pattern must not contain ':'";
                return Err(invalid(place, "family_name_regex_filter", why));
            }
            Node::FamilyRegex(regex(p.as_bytes(), "family_name_regex_filter")?)
        }
        Filter::ColumnQualifierRegexFilter(p) => {
            Node::QualifierRegex(regex(p, "column_qualifier_regex_filter")?)
        }
        Filter::ValueRegexFilter(p) => Node::ValueRegex(regex(p, "value_regex_filter")?),
        Filter::ColumnRangeFilter(range) => Node::ColumnRange(
            ColumnRange::new(range).map_err(|e| invalid(place, "column_range_filter", &e))?,
        ),
        Filter::TimestampRangeFilter(range) => Node::TimestampRange(
            TimestampRange::new(range).map_err(|e| invalid(place, "timestamp_range_filter", &e))?,
        ),
        Filter::ValueRangeFilter(range) => Node::ValueRange(value_range(range)),
        Filter::CellsPerRowOffsetFilter(n) => {
            Node::CellsPerRowOffset(count(*n, "cells_per_row_offset_filter")?)
        }
        Filter::CellsPerRowLimitFilter(n) => {
            Node::CellsPerRowLimit(count(*n, "cells_per_row_limit_filter")?)
        }
        Filter::CellsPerColumnLimitFilter(n) => {
            Node::CellsPerColumnLimit(count(*n, "cells_per_column_limit_filter")?)
        }
        Filter::RowSampleFilter(p) => {
            if !(*p > 0.0 && *p < 1.0) {
                let why = format!("{p} is not a probability strictly between 0 and 1");
                return Err(invalid(place, "row_sample_filter", &why));
            }
            Node::RowSample(*p)
        }
        // The composite filters and transformers are handled by `compile_at`.
        _ => {
            return Err(invalid(
                place,
                "filter",
                "internal error: unexpected filter kind",
            ))
        }
    })
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
            None => Ok(Compiled {
                node: missing,
                labels: false,
            }),
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

fn require_true(flag: bool, place: &Place, name: &str) -> Result<(), Status> {
    if flag {
        Ok(())
    } else {
        Err(invalid(place, name, "must be true when set"))
    }
}

fn invalid(place: &Place, name: &str, why: &str) -> Status {
    Status::invalid_argument(format!("{}.{name}: {why}", place.path))
}
