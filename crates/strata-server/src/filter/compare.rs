//! Comparison operators and comparators (`binary:`, `binaryprefix:`, `regexstring:`,
//! `substring:`), with HBase's semantics.
//!
//! Orientation, checked against HBase's `CompareFilter`: HBase computes
//! `comparator.compareTo(cellBytes)` and filters the cell OUT when, for `<`, that result is
//! `<= 0`. So a cell is KEPT by `<` exactly when the cell's bytes sort before the comparator's:
//! the operator reads left to right as `cell OP comparator`. `RowFilter(<, 'binary:m')` keeps
//! rows that sort before `m`. Here [`Comparator::order`] returns the cell's order relative to
//! the comparator, and [`CompareOp::keeps`] applies the operator to it.
//!
//! `regexstring:` and `substring:` do not order: HBase's comparator reports 0 for a match and 1
//! otherwise, which reads as "equal" or "cell before comparator". The parser allows only `=`
//! and `!=` with them (as HBase does), except in DependentColumnFilter, which HBase does not
//! check; there the other operators follow from that encoding.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use bytes::Bytes;
use regex::{Regex, RegexBuilder};

/// Longest `regexstring:` pattern accepted, in bytes.
pub const MAX_REGEX_LEN: usize = 16 * 1024;
/// Memory cap for one compiled regex (program and lazy DFA each).
pub const MAX_REGEX_MEMORY: usize = 2 * 1024 * 1024;
/// Deepest nesting of groups/repetitions inside one regex.
pub const MAX_REGEX_NEST: u32 = 64;

/// HBase's CompareOperator, written `<`, `<=`, `=`, `!=`, `>=`, `>` in the filter language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Less,
    LessOrEqual,
    Equal,
    NotEqual,
    GreaterOrEqual,
    Greater,
}

impl CompareOp {
    /// Every operator.
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Less,
        CompareOp::LessOrEqual,
        CompareOp::Equal,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Greater,
    ];

    /// The operator written `symbol`.
    pub fn from_symbol(symbol: &[u8]) -> Option<CompareOp> {
        Some(match symbol {
            b"<" => CompareOp::Less,
            b"<=" => CompareOp::LessOrEqual,
            b"=" => CompareOp::Equal,
            b"!=" => CompareOp::NotEqual,
            b">=" => CompareOp::GreaterOrEqual,
            b">" => CompareOp::Greater,
            _ => return None,
        })
    }

    /// How the operator is written.
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Less => "<",
            CompareOp::LessOrEqual => "<=",
            CompareOp::Equal => "=",
            CompareOp::NotEqual => "!=",
            CompareOp::GreaterOrEqual => ">=",
            CompareOp::Greater => ">",
        }
    }

    /// True if a cell whose bytes compare `order` to the comparator passes (`cell OP value`).
    pub fn keeps(self, order: Ordering) -> bool {
        match self {
            CompareOp::Less => order == Ordering::Less,
            CompareOp::LessOrEqual => order != Ordering::Greater,
            CompareOp::Equal => order == Ordering::Equal,
            CompareOp::NotEqual => order != Ordering::Equal,
            CompareOp::GreaterOrEqual => order != Ordering::Less,
            CompareOp::Greater => order == Ordering::Greater,
        }
    }
}

impl fmt::Display for CompareOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// The four comparator types of the filter language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComparatorKind {
    Binary,
    BinaryPrefix,
    RegexString,
    Substring,
}

impl ComparatorKind {
    /// The type name written before the colon.
    pub fn name(self) -> &'static str {
        match self {
            ComparatorKind::Binary => "binary",
            ComparatorKind::BinaryPrefix => "binaryprefix",
            ComparatorKind::RegexString => "regexstring",
            ComparatorKind::Substring => "substring",
        }
    }

    /// True for the comparators that only answer "matches or not".
    pub fn is_match_only(self) -> bool {
        matches!(
            self,
            ComparatorKind::RegexString | ComparatorKind::Substring
        )
    }
}

#[derive(Debug, Clone)]
enum Matcher {
    Bytes,
    Regex(Regex),
    Lower(String),
}

/// A parsed comparator: its type, the bytes written after the colon, and what matching needs
/// (a compiled regex, or the lower-cased substring).
#[derive(Debug, Clone)]
pub struct Comparator {
    kind: ComparatorKind,
    value: Bytes,
    matcher: Matcher,
}

impl PartialEq for Comparator {
    fn eq(&self, other: &Comparator) -> bool {
        self.kind == other.kind && self.value == other.value
    }
}

impl Eq for Comparator {}

impl Comparator {
    /// Parses `type:value` (the text inside the quotes). The type ends at the first colon and
    /// is case-sensitive, as in HBase.
    pub fn parse(text: &[u8]) -> Result<Comparator, String> {
        let colon = text
            .iter()
            .position(|&b| b == b':')
            .ok_or("a comparator needs the form type:value (no colon found)")?;
        let (name, value) = (&text[..colon], &text[colon + 1..]);
        let kind = match name {
            b"binary" => ComparatorKind::Binary,
            b"binaryprefix" => ComparatorKind::BinaryPrefix,
            b"regexstring" => ComparatorKind::RegexString,
            b"substring" => ComparatorKind::Substring,
            other => {
                return Err(format!(
                    "unknown comparator type '{}' (expected binary, binaryprefix, regexstring or substring)",
                    String::from_utf8_lossy(other)
                ))
            }
        };
        Comparator::new(kind, Bytes::copy_from_slice(value))
    }

    /// A comparator of `kind` over `value`.
    pub fn new(kind: ComparatorKind, value: Bytes) -> Result<Comparator, String> {
        let matcher = match kind {
            ComparatorKind::Binary | ComparatorKind::BinaryPrefix => Matcher::Bytes,
            ComparatorKind::Substring => {
                Matcher::Lower(String::from_utf8_lossy(&value).to_lowercase())
            }
            ComparatorKind::RegexString => Matcher::Regex(compile_regex(&value)?),
        };
        Ok(Comparator {
            kind,
            value,
            matcher,
        })
    }

    /// The comparator's type.
    pub fn kind(&self) -> ComparatorKind {
        self.kind
    }

    /// The bytes written after the colon.
    pub fn value(&self) -> &Bytes {
        &self.value
    }

    /// The order of `cell` relative to this comparator. A regex or substring match reads as
    /// `Equal`, a miss as `Less` (HBase's 0 / 1 seen from the cell's side).
    pub fn order(&self, cell: &[u8]) -> Ordering {
        match &self.matcher {
            Matcher::Bytes => match self.kind {
                ComparatorKind::BinaryPrefix => {
                    let n = cell.len().min(self.value.len());
                    cell[..n].cmp(&self.value[..])
                }
                _ => cell.cmp(&self.value[..]),
            },
            Matcher::Regex(re) => match_order(re.is_match(&decode(cell))),
            Matcher::Lower(sub) => match_order(decode(cell).to_lowercase().contains(sub.as_str())),
        }
    }

    /// True if `cell OP comparator` holds.
    pub fn test(&self, op: CompareOp, cell: &[u8]) -> bool {
        op.keeps(self.order(cell))
    }
}

impl fmt::Display for Comparator {
    /// `type:value`, unquoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}",
            self.kind.name(),
            String::from_utf8_lossy(&self.value)
        )
    }
}

fn match_order(matched: bool) -> Ordering {
    if matched {
        Ordering::Equal
    } else {
        Ordering::Less
    }
}

/// Cell bytes as HBase's comparators see them: decoded as UTF-8, bad sequences replaced.
fn decode(cell: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(cell)
}

/// Compiles a `regexstring:` pattern like HBase's default (Java DOTALL: `.` matches newlines;
/// a match may occur anywhere in the value), within size limits.
fn compile_regex(pattern: &[u8]) -> Result<Regex, String> {
    if pattern.len() > MAX_REGEX_LEN {
        return Err(format!(
            "regexstring pattern is {} bytes; the limit is {MAX_REGEX_LEN}",
            pattern.len()
        ));
    }
    let pattern = String::from_utf8_lossy(pattern);
    RegexBuilder::new(&pattern)
        .dot_matches_new_line(true)
        .size_limit(MAX_REGEX_MEMORY)
        .dfa_size_limit(MAX_REGEX_MEMORY)
        .nest_limit(MAX_REGEX_NEST)
        .build()
        .map_err(|e| format!("invalid regexstring pattern: {e}"))
}
