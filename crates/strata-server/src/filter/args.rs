//! Turns a filter call's name and arguments into a [`FilterSpec`], with HBase's argument
//! lists: their count, order, types and range checks (each filter's
//! `createFilterFromArguments`).

use bytes::Bytes;

use super::ast::{ColumnTest, FilterSpec};
use super::compare::{Comparator, CompareOp};
use super::error::FilterError;

/// One argument value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgValue {
    Int(i64),
    Bool(bool),
    Str(Vec<u8>),
    Op(CompareOp),
}

/// An argument and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arg {
    pub value: ArgValue,
    pub start: usize,
}

/// Reads an unquoted word as an integer (optional `-`, then digits, as HBase) or a boolean
/// (`true` / `false`, any case, as HBase).
pub(crate) fn word_value(word: &[u8]) -> Result<ArgValue, String> {
    if word.eq_ignore_ascii_case(b"true") {
        return Ok(ArgValue::Bool(true));
    }
    if word.eq_ignore_ascii_case(b"false") {
        return Ok(ArgValue::Bool(false));
    }
    let digits = word.strip_prefix(b"-").unwrap_or(word);
    if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
        let text = String::from_utf8_lossy(word);
        return text
            .parse::<i64>()
            .map(ArgValue::Int)
            .map_err(|_| format!("integer {text} is out of range"));
    }
    Err(format!(
        "expected an integer, a boolean, a quoted string or a comparison operator, found '{}'",
        String::from_utf8_lossy(word)
    ))
}

/// The arguments of one call, read in order.
struct Args<'a> {
    input: &'a [u8],
    name: &'a str,
    /// Where the call ends (its closing parenthesis), for "missing argument" errors.
    end: usize,
    args: Vec<Arg>,
    next: usize,
}

impl<'a> Args<'a> {
    fn err(&self, at: usize, msg: impl std::fmt::Display) -> FilterError {
        FilterError::at(self.input, at, format!("{}: {msg}", self.name))
    }

    /// Where the next argument starts (the call's end when there is none).
    fn position(&self) -> usize {
        self.args.get(self.next).map_or(self.end, |a| a.start)
    }

    fn next(&mut self, what: &str) -> Result<Arg, FilterError> {
        let arg = self
            .args
            .get(self.next)
            .cloned()
            .ok_or_else(|| self.err(self.end, format!("missing argument: expected {what}")))?;
        self.next += 1;
        Ok(arg)
    }

    fn bytes(&mut self, what: &str) -> Result<Bytes, FilterError> {
        let arg = self.next(what)?;
        match arg.value {
            ArgValue::Str(s) => Ok(Bytes::from(s)),
            _ => Err(self.err(arg.start, format!("expected {what} as a quoted string"))),
        }
    }

    fn boolean(&mut self, what: &str) -> Result<bool, FilterError> {
        let arg = self.next(what)?;
        match arg.value {
            ArgValue::Bool(b) => Ok(b),
            _ => Err(self.err(arg.start, format!("expected {what} (true or false)"))),
        }
    }

    fn long(&mut self, what: &str) -> Result<(i64, usize), FilterError> {
        let arg = self.next(what)?;
        match arg.value {
            ArgValue::Int(n) => Ok((n, arg.start)),
            _ => Err(self.err(arg.start, format!("expected {what} (an integer)"))),
        }
    }

    /// A 32-bit integer that must not be negative.
    fn count(&mut self, what: &str) -> Result<i32, FilterError> {
        let (n, at) = self.long(what)?;
        let n =
            i32::try_from(n).map_err(|_| self.err(at, format!("{what} {n} is out of range")))?;
        if n < 0 {
            return Err(self.err(at, format!("{what} must not be negative")));
        }
        Ok(n)
    }

    fn op(&mut self) -> Result<CompareOp, FilterError> {
        let arg = self.next("a comparison operator")?;
        match arg.value {
            ArgValue::Op(op) => Ok(op),
            _ => Err(self.err(
                arg.start,
                "expected a comparison operator (<, <=, =, !=, >=, >)",
            )),
        }
    }

    fn comparator(&mut self) -> Result<(Comparator, usize), FilterError> {
        let arg = self.next("a comparator")?;
        match arg.value {
            ArgValue::Str(s) => Comparator::parse(&s)
                .map(|c| (c, arg.start))
                .map_err(|e| self.err(arg.start, e)),
            _ => Err(self.err(
                arg.start,
                "expected a quoted comparator such as 'binary:abc'",
            )),
        }
    }

    /// An operator and comparator; regexstring and substring allow only `=` and `!=` unless
    /// `any_op`.
    fn op_comparator(&mut self, any_op: bool) -> Result<(CompareOp, Comparator), FilterError> {
        let op = self.op()?;
        let (cmp, at) = self.comparator()?;
        if !any_op
            && cmp.kind().is_match_only()
            && !matches!(op, CompareOp::Equal | CompareOp::NotEqual)
        {
            return Err(self.err(
                at,
                format!("a {} comparator allows only = and !=", cmp.kind().name()),
            ));
        }
        Ok((op, cmp))
    }

    fn remaining(&self) -> usize {
        self.args.len() - self.next
    }

    /// Fails unless the argument count is one of `allowed`.
    fn expect_count(&self, allowed: &[usize]) -> Result<(), FilterError> {
        let n = self.args.len();
        if allowed.contains(&n) {
            return Ok(());
        }
        let expected: Vec<String> = allowed.iter().map(usize::to_string).collect();
        let at = self.args.get(allowed.iter().copied().max().unwrap_or(0));
        Err(self.err(
            at.map_or(self.end, |a| a.start),
            format!("expected {} argument(s), got {n}", expected.join(" or ")),
        ))
    }
}

/// Builds the filter `name(args)`. `name_at` is where the name starts and `end` where the
/// argument list closes.
pub(crate) fn build(
    input: &[u8],
    name: &[u8],
    name_at: usize,
    end: usize,
    args: Vec<Arg>,
) -> Result<FilterSpec, FilterError> {
    let name_text = String::from_utf8_lossy(name);
    let mut a = Args {
        input,
        name: &name_text,
        end,
        args,
        next: 0,
    };
    let spec = match name {
        b"KeyOnlyFilter" => {
            a.expect_count(&[0, 1])?;
            let len_as_value = a.remaining() == 1 && a.boolean("lenAsValue")?;
            FilterSpec::KeyOnly { len_as_value }
        }
        b"FirstKeyOnlyFilter" => {
            a.expect_count(&[0])?;
            FilterSpec::FirstKeyOnly
        }
        b"PrefixFilter" => {
            a.expect_count(&[1])?;
            FilterSpec::Prefix(a.bytes("the row prefix")?)
        }
        b"ColumnPrefixFilter" => {
            a.expect_count(&[1])?;
            FilterSpec::ColumnPrefix(a.bytes("the column prefix")?)
        }
        b"MultipleColumnPrefixFilter" => {
            let mut prefixes = Vec::with_capacity(a.remaining());
            while a.remaining() > 0 {
                let at = a.position();
                let prefix = a.bytes("a column prefix")?;
                // HBase's constructor refuses a repeated prefix (the scan fails).
                if prefixes.contains(&prefix) {
                    return Err(a.err(at, "prefixes must be distinct"));
                }
                prefixes.push(prefix);
            }
            FilterSpec::MultipleColumnPrefix(prefixes)
        }
        b"ColumnCountGetFilter" => {
            a.expect_count(&[1])?;
            FilterSpec::ColumnCountGet(a.count("limit")?)
        }
        b"PageFilter" => {
            a.expect_count(&[1])?;
            // HBase's PageFilter constructor refuses a negative size (the scan fails).
            let (size, at) = a.long("the page size")?;
            if size < 0 {
                return Err(a.err(
                    at,
                    format!("the page size must not be negative, got {size}"),
                ));
            }
            FilterSpec::Page(size)
        }
        b"ColumnPaginationFilter" => {
            a.expect_count(&[2])?;
            let limit = a.count("limit")?;
            let offset = a.count("offset")?;
            FilterSpec::ColumnPagination { limit, offset }
        }
        b"InclusiveStopFilter" => {
            a.expect_count(&[1])?;
            FilterSpec::InclusiveStop(a.bytes("the stop row")?)
        }
        b"TimestampsFilter" => {
            let mut stamps = Vec::with_capacity(a.remaining());
            while a.remaining() > 0 {
                let (ts, at) = a.long("a timestamp")?;
                if ts < 0 {
                    return Err(a.err(at, "timestamps must not be negative"));
                }
                stamps.push(ts);
            }
            FilterSpec::Timestamps(stamps)
        }
        b"RowFilter" | b"FamilyFilter" | b"QualifierFilter" | b"ValueFilter" => {
            a.expect_count(&[2])?;
            let (op, cmp) = a.op_comparator(false)?;
            match name {
                b"RowFilter" => FilterSpec::Row(op, cmp),
                b"FamilyFilter" => FilterSpec::Family(op, cmp),
                b"QualifierFilter" => FilterSpec::Qualifier(op, cmp),
                _ => FilterSpec::Value(op, cmp),
            }
        }
        b"ColumnRangeFilter" => {
            a.expect_count(&[4])?;
            FilterSpec::ColumnRange {
                min: a.bytes("the minimum column")?,
                min_inclusive: a.boolean("minColumnInclusive")?,
                max: a.bytes("the maximum column")?,
                max_inclusive: a.boolean("maxColumnInclusive")?,
            }
        }
        b"SingleColumnValueFilter" | b"SingleColumnValueExcludeFilter" => {
            a.expect_count(&[4, 6])?;
            let family = a.bytes("the column family")?;
            let qualifier = a.bytes("the column qualifier")?;
            let (op, comparator) = a.op_comparator(false)?;
            let (filter_if_missing, latest_version_only) = if a.remaining() == 2 {
                (
                    a.boolean("filterIfMissing")?,
                    a.boolean("latestVersionOnly")?,
                )
            } else {
                (false, true)
            };
            let test = ColumnTest {
                family,
                qualifier,
                op,
                comparator,
                filter_if_missing,
                latest_version_only,
            };
            if name == b"SingleColumnValueFilter" {
                FilterSpec::SingleColumnValue(test)
            } else {
                FilterSpec::SingleColumnValueExclude(test)
            }
        }
        b"DependentColumnFilter" => {
            a.expect_count(&[2, 3, 5])?;
            let family = a.bytes("the column family")?;
            let qualifier = a.bytes("the column qualifier")?;
            let drop_dependent = a.remaining() > 0 && a.boolean("dropDependentColumn")?;
            let test = if a.remaining() > 0 {
                Some(a.op_comparator(true)?)
            } else {
                None
            };
            FilterSpec::DependentColumn {
                family,
                qualifier,
                drop_dependent,
                test,
            }
        }
        b"ColumnValueFilter" => {
            a.expect_count(&[4])?;
            let family = a.bytes("the column family")?;
            let qualifier = a.bytes("the column qualifier")?;
            let (op, comparator) = a.op_comparator(false)?;
            FilterSpec::ColumnValue {
                family,
                qualifier,
                op,
                comparator,
            }
        }
        _ => {
            return Err(FilterError::at(
                input,
                name_at,
                format!("unknown filter '{name_text}'"),
            ))
        }
    };
    Ok(spec)
}
