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

/// Decodes a filter for a Get or a Scan; `None` when it lets every cell through (an
/// empty FilterList).
pub fn decode(filter: &pb::Filter) -> Result<Option<Filter>, RemoteException> {
    Ok(decode_expr(filter)?.map(Filter::new))
}

/// The filter expression `filter` stands for (`None`: it lets every cell through), for a
/// caller that needs fresh filters of it more than once.
pub fn decode_expr(filter: &pb::Filter) -> Result<Option<Expr>, RemoteException> {
    expr(filter, 0)
}

fn unsupported(what: &str, name: &str) -> RemoteException {
    RemoteException::invalid(format!("{what} {name} is not supported by Strata"))
}

fn message<M: Message + Default>(filter: &pb::Filter) -> Result<M, RemoteException> {
    M::decode(filter.serialized_filter.clone().unwrap_or_default())
        .map_err(|e| RemoteException::invalid(format!("cannot decode {}: {e}", filter.name)))
}

/// The filter as an expression; `None` for one that passes everything.
fn expr(filter: &pb::Filter, depth: usize) -> Result<Option<Expr>, RemoteException> {
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
            return Ok(expr(&inner.filter, depth + 1)?.map(|e| Expr::While(Box::new(e))));
        }
        "SkipFilter" => {
            let inner: pb::FilterWrapper = message(filter)?;
            return Ok(expr(&inner.filter, depth + 1)?.map(|e| Expr::Skip(Box::new(e))));
        }
        "MultiRowRangeFilter" => return row_ranges(message(filter)?).map(Some),
        // No row passes; a page of no rows ends the scan with the same (empty) answer.
        "FilterAllFilter" => FilterSpec::Page(0),
        _ => spec(short, filter)?,
    };
    Ok(Some(Expr::Filter(spec)))
}

/// MultiRowRangeFilter as an OR of row ranges, each an AND of two row comparisons.
fn row_ranges(f: pb::MultiRowRangeFilter) -> Result<Expr, RemoteException> {
    let mut ranges = Vec::with_capacity(f.row_range_list.len());
    for range in &f.row_range_list {
        let mut bounds = Vec::new();
        if let Some(start) = range.start_row.as_ref().filter(|s| !s.is_empty()) {
            let op = if range.start_row_inclusive.unwrap_or(true) {
                CompareOp::GreaterOrEqual
            } else {
                CompareOp::Greater
            };
            bounds.push(row_bound(op, start)?);
        }
        if let Some(stop) = range.stop_row.as_ref().filter(|s| !s.is_empty()) {
            let op = if range.stop_row_inclusive() {
                CompareOp::LessOrEqual
            } else {
                CompareOp::Less
            };
            bounds.push(row_bound(op, stop)?);
        }
        ranges.push(match bounds.len() {
            // An open range: every row (a row is never below the empty key).
            0 => row_bound(CompareOp::GreaterOrEqual, &Bytes::new())?,
            1 => bounds.remove(0),
            _ => Expr::And(bounds),
        });
    }
    match ranges.len() {
        0 => Ok(Expr::Filter(FilterSpec::Page(0))),
        1 => Ok(ranges.remove(0)),
        _ => Ok(Expr::Or(ranges)),
    }
}

fn row_bound(op: CompareOp, row: &Bytes) -> Result<Expr, RemoteException> {
    let comparator =
        Comparator::new(ComparatorKind::Binary, row.clone()).map_err(RemoteException::invalid)?;
    Ok(Expr::Filter(FilterSpec::Row(op, comparator)))
}

/// A FilterList. An operand that passes everything drops out of an AND and makes an OR
/// pass everything; an empty list passes everything, as in HBase.
fn list(list: pb::FilterList, depth: usize) -> Result<Option<Expr>, RemoteException> {
    let any = list.operator() == pb::filter_list::Operator::MustPassOne;
    let mut operands = Vec::with_capacity(list.filters.len());
    for f in &list.filters {
        match expr(f, depth + 1)? {
            Some(e) => operands.push(e),
            None if any => return Ok(None),
            None => {}
        }
    }
    Ok(match operands.len() {
        0 => None,
        1 => operands.pop(),
        _ if any => Some(Expr::Or(operands)),
        _ => Some(Expr::And(operands)),
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
            let flags = inline_flags(regex.pattern_flags)?;
            (
                ComparatorKind::RegexString,
                Bytes::from(format!("{flags}{}", regex.pattern)),
            )
        }
        "SubstringComparator" => {
            let sub = pb::SubstringComparator::decode(bytes).map_err(bad)?;
            (ComparatorKind::Substring, Bytes::from(sub.substr))
        }
        _ => return Err(unsupported("comparator", &c.name)),
    };
    Comparator::new(kind, value).map_err(RemoteException::invalid)
}

/// Java's Pattern flags as inline regex flags: CASE_INSENSITIVE (2), MULTILINE (8) and
/// DOTALL (32, the comparator's default). Others are refused.
fn inline_flags(flags: i32) -> Result<String, RemoteException> {
    const KNOWN: [(i32, char); 3] = [(2, 'i'), (8, 'm'), (32, 's')];
    let known_bits: i32 = KNOWN.iter().map(|(bit, _)| bit).sum();
    if flags & !known_bits != 0 {
        return Err(RemoteException::invalid(format!(
            "RegexStringComparator flags {flags:#x} are not supported by Strata (only i, m, s)"
        )));
    }
    let letters: String = KNOWN
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, c)| *c)
        .collect();
    Ok(if letters.is_empty() {
        String::new()
    } else {
        format!("(?{letters})")
    })
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
        let decoded = expr(&list, 0).unwrap().unwrap();
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
    fn an_empty_list_passes_everything_and_drops_out_of_an_and() {
        let empty = filter(
            "FilterList",
            &pb::FilterList {
                operator: pb::filter_list::Operator::MustPassOne as i32,
                filters: vec![],
            },
        );
        assert!(decode(&empty).unwrap().is_none());
        let page = filter("PageFilter", &pb::PageFilter { page_size: 3 });
        let and = filter(
            "FilterList",
            &pb::FilterList {
                operator: pb::filter_list::Operator::MustPassAll as i32,
                filters: vec![empty, page],
            },
        );
        assert_eq!(
            expr(&and, 0).unwrap(),
            Some(Expr::Filter(FilterSpec::Page(3)))
        );
    }

    #[test]
    fn row_ranges_become_row_comparisons() {
        let ranges = pb::MultiRowRangeFilter {
            row_range_list: vec![
                pb::RowRange {
                    start_row: Some(Bytes::from_static(b"a")),
                    start_row_inclusive: Some(true),
                    stop_row: Some(Bytes::from_static(b"c")),
                    stop_row_inclusive: Some(false),
                },
                pb::RowRange {
                    start_row: Some(Bytes::from_static(b"x")),
                    start_row_inclusive: Some(false),
                    stop_row: None,
                    stop_row_inclusive: None,
                },
            ],
        };
        let Some(Expr::Or(parts)) = expr(&filter("MultiRowRangeFilter", &ranges), 0).unwrap()
        else {
            panic!("not an OR");
        };
        assert!(matches!(&parts[0], Expr::And(b) if b.len() == 2));
        assert!(matches!(
            &parts[1],
            Expr::Filter(FilterSpec::Row(CompareOp::Greater, _))
        ));
    }

    #[test]
    fn java_regex_flags_become_inline_flags() {
        assert_eq!(inline_flags(32).unwrap(), "(?s)");
        assert_eq!(inline_flags(2 | 32).unwrap(), "(?is)");
        assert_eq!(inline_flags(0).unwrap(), "");
        assert!(inline_flags(1).is_err());
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
