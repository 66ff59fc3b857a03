//! HBase's JSON filter representation (what its REST scanners take, e.g.
//! `{"type":"PrefixFilter","value":"<b64>"}`) translated into the filter language the
//! service layer runs. Text that is not a JSON object is taken as filter-language text.

use serde_json::{Map, Value};

use super::cellset::decode_b64;
use crate::error::{RestError, RestResult};

/// Filter lists nest at most this deep.
const MAX_DEPTH: usize = 32;

fn bad(message: impl Into<String>) -> RestError {
    RestError::BadRequest(message.into())
}

/// The filter-language text of a scanner's filter.
pub fn to_filter_language(filter: &str) -> RestResult<Vec<u8>> {
    // The filter language never starts with `{`: such text is HBase's JSON form.
    if !filter.trim_start().starts_with('{') {
        return Ok(filter.as_bytes().to_vec());
    }
    match serde_json::from_str::<Value>(filter) {
        Ok(Value::Object(object)) => translate(&object, 0),
        Ok(_) => Err(bad("a JSON filter must be an object")),
        Err(e) => Err(bad(format!("malformed JSON filter: {e}"))),
    }
}

/// `'...'` with quotes doubled, as the filter language reads byte strings.
fn quoted(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![b'\''];
    for &b in bytes {
        out.push(b);
        if b == b'\'' {
            out.push(b'\'');
        }
    }
    out.push(b'\'');
    out
}

fn text<'a>(object: &'a Map<String, Value>, key: &str) -> RestResult<&'a str> {
    object
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("filter needs a text field {key:?}")))
}

fn b64_field(object: &Map<String, Value>, key: &str) -> RestResult<Vec<u8>> {
    Ok(decode_b64(text(object, key)?, key)?.to_vec())
}

fn integer(object: &Map<String, Value>, key: &str) -> RestResult<i64> {
    match object.get(key) {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| bad(format!("filter needs a number field {key:?}")))
}

fn flag(object: &Map<String, Value>, key: &str, default: bool) -> bool {
    match object.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => default,
    }
}

fn operator(object: &Map<String, Value>) -> RestResult<&'static str> {
    Ok(match text(object, "op")? {
        "LESS" => "<",
        "LESS_OR_EQUAL" => "<=",
        "EQUAL" => "=",
        "NOT_EQUAL" => "!=",
        "GREATER_OR_EQUAL" => ">=",
        "GREATER" => ">",
        other => return Err(bad(format!("unsupported filter operator {other:?}"))),
    })
}

/// `'binary:...'` and friends.
fn comparator(object: &Map<String, Value>) -> RestResult<Vec<u8>> {
    let c = object
        .get("comparator")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("filter needs a comparator object"))?;
    let (kind, value) = match text(c, "type")? {
        "BinaryComparator" => ("binary:", b64_field(c, "value")?),
        "BinaryPrefixComparator" => ("binaryprefix:", b64_field(c, "value")?),
        // These two carry their value as plain text in HBase's JSON.
        "RegexStringComparator" => ("regexstring:", text(c, "value")?.as_bytes().to_vec()),
        "SubstringComparator" => ("substring:", text(c, "value")?.as_bytes().to_vec()),
        other => return Err(bad(format!("unsupported comparator {other:?}"))),
    };
    let mut full = kind.as_bytes().to_vec();
    full.extend_from_slice(&value);
    Ok(quoted(&full))
}

fn call(name: &str, args: Vec<Vec<u8>>) -> Vec<u8> {
    let mut out = format!("{name}(").into_bytes();
    for (i, arg) in args.into_iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(&arg);
    }
    out.push(b')');
    out
}

fn sub_filters(object: &Map<String, Value>, depth: usize) -> RestResult<Vec<Vec<u8>>> {
    object
        .get("filters")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("filter needs a filters array"))?
        .iter()
        .map(|f| {
            let f = f
                .as_object()
                .ok_or_else(|| bad("each filter must be an object"))?;
            translate(f, depth + 1)
        })
        .collect()
}

fn translate(object: &Map<String, Value>, depth: usize) -> RestResult<Vec<u8>> {
    if depth > MAX_DEPTH {
        return Err(bad("filters nest too deeply"));
    }
    let kind = text(object, "type")?;
    let num = |key: &str| integer(object, key).map(|n| n.to_string().into_bytes());
    let word = |b: bool| {
        if b {
            b"true".to_vec()
        } else {
            b"false".to_vec()
        }
    };
    Ok(match kind {
        "KeyOnlyFilter" | "FirstKeyOnlyFilter" => call(kind, vec![]),
        "PrefixFilter" | "ColumnPrefixFilter" | "InclusiveStopFilter" => {
            call(kind, vec![quoted(&b64_field(object, "value")?)])
        }
        "PageFilter" => call(kind, vec![num("value")?]),
        "ColumnCountGetFilter" => call(kind, vec![num("limit")?]),
        "ColumnPaginationFilter" => call(kind, vec![num("limit")?, num("offset")?]),
        "MultipleColumnPrefixFilter" => {
            let prefixes = object
                .get("prefixes")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("MultipleColumnPrefixFilter needs prefixes"))?;
            let args = prefixes
                .iter()
                .map(|p| {
                    let p = p.as_str().ok_or_else(|| bad("prefixes must be text"))?;
                    Ok(quoted(&decode_b64(p, "prefix")?))
                })
                .collect::<RestResult<Vec<_>>>()?;
            call(kind, args)
        }
        "TimestampsFilter" => {
            let stamps = object
                .get("timestamps")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("TimestampsFilter needs timestamps"))?;
            let args = stamps
                .iter()
                .map(|t| {
                    t.as_i64()
                        .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
                        .map(|t| t.to_string().into_bytes())
                        .ok_or_else(|| bad("timestamps must be numbers"))
                })
                .collect::<RestResult<Vec<_>>>()?;
            call(kind, args)
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => call(
            kind,
            vec![operator(object)?.as_bytes().to_vec(), comparator(object)?],
        ),
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => call(
            kind,
            vec![
                quoted(&b64_field(object, "family")?),
                quoted(&b64_field(object, "qualifier")?),
                operator(object)?.as_bytes().to_vec(),
                comparator(object)?,
                word(flag(object, "ifMissing", false)),
                word(flag(object, "latestVersion", true)),
            ],
        ),
        "ColumnRangeFilter" => call(
            kind,
            vec![
                quoted(&b64_field(object, "minColumn")?),
                word(flag(object, "minColumnInclusive", true)),
                quoted(&b64_field(object, "maxColumn")?),
                word(flag(object, "maxColumnInclusive", false)),
            ],
        ),
        "SkipFilter" | "WhileMatchFilter" => {
            let mut inner = sub_filters(object, depth)?;
            if inner.len() != 1 {
                return Err(bad(format!("{kind} wraps exactly one filter")));
            }
            let keyword: &[u8] = if kind == "SkipFilter" {
                b"SKIP "
            } else {
                b"WHILE "
            };
            [keyword, &inner.remove(0)].concat()
        }
        "FilterList" => {
            let joiner: &[u8] = match object.get("op").and_then(Value::as_str) {
                Some("MUST_PASS_ONE") => b" OR ",
                None | Some("MUST_PASS_ALL") => b" AND ",
                Some(other) => return Err(bad(format!("unknown FilterList op {other:?}"))),
            };
            let inner = sub_filters(object, depth)?;
            if inner.is_empty() {
                return Err(bad("an empty FilterList"));
            }
            let mut out = b"(".to_vec();
            out.extend_from_slice(&inner.join(joiner));
            out.push(b')');
            out
        }
        other => return Err(bad(format!("unsupported filter type {other:?}"))),
    })
}
