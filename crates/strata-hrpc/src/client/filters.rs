//! HBase's serialized filters (a Java class name and that class's message) as Strata's
//! filter expressions, so a filter sent over native RPC is evaluated by the same code as
//! one in Thrift's filter language. A filter Strata does not have is refused with a
//! DoNotRetryIOException that names it.

use bytes::Bytes;
use prost::Message;
use strata_server::filter::{
    ColumnTest, Comparator, ComparatorKind, CompareOp, Expr, Filter, FilterSpec, MAX_DEPTH,
};

use crate::exception::RemoteException;
use crate::pb;

const FILTERS: &str = "org.apache.hadoop.hbase.filter.";

/// Decodes a filter for a Get or a Scan.
pub fn decode(filter: &pb::Filter) -> Result<Filter, RemoteException> {
    expr(filter, 0).map(Filter::new)
}

fn unsupported(what: &str, name: &str) -> RemoteException {
    RemoteException::invalid(format!("{what} {name} is not supported by Strata"))
}

fn message<M: Message + Default>(filter: &pb::Filter) -> Result<M, RemoteException> {
    M::decode(filter.serialized_filter.clone().unwrap_or_default())
        .map_err(|e| RemoteException::invalid(format!("cannot decode {}: {e}", filter.name)))
}

fn expr(filter: &pb::Filter, depth: usize) -> Result<Expr, RemoteException> {
    if depth > MAX_DEPTH {
        return Err(RemoteException::invalid(format!(
            "filters are nested deeper than {MAX_DEPTH}"
        )));
    }
    let short = filter.name.strip_prefix(FILTERS).unwrap_or("");
    let spec = match short {
        "FilterList" => return list(message(filter)?, depth),
        "WhileMatchFilter" => {
            let inner: pb::FilterWrapper = message(filter)?;
            return Ok(Expr::While(Box::new(expr(&inner.filter, depth + 1)?)));
        }
        "SkipFilter" => {
            let inner: pb::FilterWrapper = message(filter)?;
            return Ok(Expr::Skip(Box::new(expr(&inner.filter, depth + 1)?)));
        }
        _ => spec(short, filter)?,
    };
    Ok(Expr::Filter(spec))
}

fn list(list: pb::FilterList, depth: usize) -> Result<Expr, RemoteException> {
    let operands = list
        .filters
        .iter()
        .map(|f| expr(f, depth + 1))
        .collect::<Result<Vec<_>, _>>()?;
    if operands.is_empty() {
        return Err(RemoteException::invalid(
            "an empty FilterList is not supported by Strata",
        ));
    }
    if operands.len() == 1 {
        return Ok(operands.into_iter().next().unwrap_or(Expr::And(Vec::new())));
    }
    Ok(match list.operator() {
        pb::filter_list::Operator::MustPassAll => Expr::And(operands),
        pb::filter_list::Operator::MustPassOne => Expr::Or(operands),
    })
}

fn spec(short: &str, filter: &pb::Filter) -> Result<FilterSpec, RemoteException> {
    Ok(match short {
        "KeyOnlyFilter" => FilterSpec::KeyOnly {
            len_as_value: message::<pb::KeyOnlyFilter>(filter)?.len_as_val,
        },
        "FirstKeyOnlyFilter" => FilterSpec::FirstKeyOnly,
        "PrefixFilter" => FilterSpec::Prefix(
            message::<pb::PrefixFilter>(filter)?
                .prefix
                .unwrap_or_default(),
        ),
        "ColumnPrefixFilter" => FilterSpec::ColumnPrefix(
            message::<pb::PrefixFilter>(filter)?
                .prefix
                .unwrap_or_default(),
        ),
        "MultipleColumnPrefixFilter" => FilterSpec::MultipleColumnPrefix(
            message::<pb::MultipleColumnPrefixFilter>(filter)?.sorted_prefixes,
        ),
        "ColumnCountGetFilter" => {
            FilterSpec::ColumnCountGet(message::<pb::ColumnCountGetFilter>(filter)?.limit)
        }
        "PageFilter" => FilterSpec::Page(message::<pb::PageFilter>(filter)?.page_size),
        "ColumnPaginationFilter" => pagination(message(filter)?)?,
        "InclusiveStopFilter" => FilterSpec::InclusiveStop(
            message::<pb::InclusiveStopFilter>(filter)?
                .stop_row_key
                .unwrap_or_default(),
        ),
        "TimestampsFilter" => {
            FilterSpec::Timestamps(message::<pb::TimestampsFilter>(filter)?.timestamps)
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
            compare_filter(short, message(filter)?)?
        }
        "ColumnRangeFilter" => {
            let range: pb::ColumnRangeFilter = message(filter)?;
            FilterSpec::ColumnRange {
                min_inclusive: range.min_column_inclusive(),
                max_inclusive: range.max_column_inclusive(),
                min: range.min_column.unwrap_or_default(),
                max: range.max_column.unwrap_or_default(),
            }
        }
        "SingleColumnValueFilter" => FilterSpec::SingleColumnValue(column_test(message(filter)?)?),
        "SingleColumnValueExcludeFilter" => {
            let exclude: pb::SingleColumnValueExcludeFilter = message(filter)?;
            FilterSpec::SingleColumnValueExclude(column_test(exclude.single_column_value_filter)?)
        }
        "ColumnValueFilter" => {
            let f: pb::ColumnValueFilter = message(filter)?;
            FilterSpec::ColumnValue {
                op: op(f.compare_op())?,
                comparator: comparator(&f.comparator)?,
                family: f.family,
                qualifier: f.qualifier,
            }
        }
        _ => return Err(unsupported("filter", &filter.name)),
    })
}

fn pagination(f: pb::ColumnPaginationFilter) -> Result<FilterSpec, RemoteException> {
    if f.column_offset.is_some() {
        return Err(RemoteException::invalid(
            "ColumnPaginationFilter with a column offset is not supported by Strata",
        ));
    }
    Ok(FilterSpec::ColumnPagination {
        limit: f.limit,
        offset: f.offset(),
    })
}

fn compare_filter(short: &str, f: pb::CompareFilterWrapper) -> Result<FilterSpec, RemoteException> {
    let compare = f.compare_filter;
    let op = op(compare.compare_op())?;
    let comparator = comparator(
        compare
            .comparator
            .as_ref()
            .ok_or_else(|| RemoteException::invalid(format!("{short} has no comparator")))?,
    )?;
    Ok(match short {
        "RowFilter" => FilterSpec::Row(op, comparator),
        "FamilyFilter" => FilterSpec::Family(op, comparator),
        "QualifierFilter" => FilterSpec::Qualifier(op, comparator),
        _ => FilterSpec::Value(op, comparator),
    })
}

fn column_test(f: pb::SingleColumnValueFilter) -> Result<ColumnTest, RemoteException> {
    Ok(ColumnTest {
        op: op(f.compare_op())?,
        comparator: comparator(&f.comparator)?,
        filter_if_missing: f.filter_if_missing(),
        latest_version_only: f.latest_version_only.unwrap_or(true),
        family: f.column_family.unwrap_or_default(),
        qualifier: f.column_qualifier.unwrap_or_default(),
    })
}

/// HBase's CompareType; NO_OP has no meaning in a filter or a check.
pub fn op(op: pb::CompareType) -> Result<CompareOp, RemoteException> {
    Ok(match op {
        pb::CompareType::Less => CompareOp::Less,
        pb::CompareType::LessOrEqual => CompareOp::LessOrEqual,
        pb::CompareType::Equal => CompareOp::Equal,
        pb::CompareType::NotEqual => CompareOp::NotEqual,
        pb::CompareType::GreaterOrEqual => CompareOp::GreaterOrEqual,
        pb::CompareType::Greater => CompareOp::Greater,
        pb::CompareType::NoOp => {
            return Err(RemoteException::invalid(
                "compare operator NO_OP is not supported",
            ))
        }
    })
}

const COMPARATORS: &str = "org.apache.hadoop.hbase.filter.";

/// A serialized comparator.
pub fn comparator(c: &pb::Comparator) -> Result<Comparator, RemoteException> {
    let bytes = c.serialized_comparator.clone().unwrap_or_default();
    let bad =
        |e: prost::DecodeError| RemoteException::invalid(format!("cannot decode {}: {e}", c.name));
    let (kind, value) = match c.name.strip_prefix(COMPARATORS).unwrap_or("") {
        "BinaryComparator" => (ComparatorKind::Binary, comparable(bytes).map_err(bad)?),
        "BinaryPrefixComparator" => (
            ComparatorKind::BinaryPrefix,
            comparable(bytes).map_err(bad)?,
        ),
        "RegexStringComparator" => {
            let regex = pb::RegexStringComparator::decode(bytes).map_err(bad)?;
            if regex.pattern_flags != 0 {
                return Err(RemoteException::invalid(
                    "RegexStringComparator flags are not supported by Strata",
                ));
            }
            (ComparatorKind::RegexString, Bytes::from(regex.pattern))
        }
        "SubstringComparator" => {
            let sub = pb::SubstringComparator::decode(bytes).map_err(bad)?;
            (ComparatorKind::Substring, Bytes::from(sub.substr))
        }
        _ => return Err(unsupported("comparator", &c.name)),
    };
    Comparator::new(kind, value).map_err(RemoteException::invalid)
}

fn comparable(bytes: Bytes) -> Result<Bytes, prost::DecodeError> {
    Ok(pb::ComparableWrapper::decode(bytes)?
        .comparable
        .value
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(name: &str, message: &impl Message) -> pb::Filter {
        pb::Filter {
            name: format!("{FILTERS}{name}"),
            serialized_filter: Some(message.encode_to_vec().into()),
        }
    }

    fn binary(value: &[u8]) -> pb::Comparator {
        pb::Comparator {
            name: format!("{COMPARATORS}BinaryComparator"),
            serialized_comparator: Some(
                pb::ComparableWrapper {
                    comparable: pb::ByteArrayComparable {
                        value: Some(Bytes::copy_from_slice(value)),
                    },
                }
                .encode_to_vec()
                .into(),
            ),
        }
    }

    #[test]
    fn a_filter_list_of_page_and_value_filters_decodes() {
        let page = filter("PageFilter", &pb::PageFilter { page_size: 10 });
        let value = filter(
            "ValueFilter",
            &pb::CompareFilterWrapper {
                compare_filter: pb::CompareFilter {
                    compare_op: pb::CompareType::Equal as i32,
                    comparator: Some(binary(b"v")),
                },
            },
        );
        let list = filter(
            "FilterList",
            &pb::FilterList {
                operator: pb::filter_list::Operator::MustPassAll as i32,
                filters: vec![page, value],
            },
        );
        let decoded = expr(&list, 0).unwrap();
        let Expr::And(operands) = decoded else {
            panic!("not an AND: {decoded:?}");
        };
        assert_eq!(operands[0], Expr::Filter(FilterSpec::Page(10)));
        assert!(matches!(
            &operands[1],
            Expr::Filter(FilterSpec::Value(CompareOp::Equal, _))
        ));
    }

    #[test]
    fn unknown_filters_are_refused_by_name() {
        let fuzzy = pb::Filter {
            name: format!("{FILTERS}FuzzyRowFilter"),
            serialized_filter: None,
        };
        let error = decode(&fuzzy).unwrap_err();
        assert!(error.do_not_retry);
        assert!(
            error.message.contains("FuzzyRowFilter"),
            "{}",
            error.message
        );
    }

    #[test]
    fn nesting_is_bounded() {
        let mut f = filter("FirstKeyOnlyFilter", &pb::FilterWrapper::default());
        for _ in 0..(MAX_DEPTH + 2) {
            f = filter("WhileMatchFilter", &pb::FilterWrapper { filter: f });
        }
        assert!(decode(&f).is_err());
    }
}
