//! The values a command's arguments are made of: the Ruby literals HBase's shell accepts.

use std::fmt;

/// One argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A quoted string, as bytes (`"\x00"` is a zero byte, not UTF-8).
    Str(Vec<u8>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Nil,
    /// A bare word: a hash key such as `NAME`, or a constant.
    Const(String),
    Array(Vec<Value>),
    /// `{KEY => value, ...}` in the order written.
    Hash(Vec<(Value, Value)>),
}

impl Value {
    /// The text of a string or constant (hash keys may be either: `NAME` or `'NAME'`).
    pub fn key_text(&self) -> Option<String> {
        match self {
            Value::Const(c) => Some(c.clone()),
            Value::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
            _ => None,
        }
    }

    pub fn as_hash(&self) -> Option<&[(Value, Value)]> {
        match self {
            Value::Hash(h) => Some(h),
            _ => None,
        }
    }

    /// What kind of value this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "String",
            Value::Int(_) => "Integer",
            Value::Float(_) => "Float",
            Value::Bool(_) => "Boolean",
            Value::Nil => "nil",
            Value::Const(_) => "constant",
            Value::Array(_) => "Array",
            Value::Hash(_) => "Hash",
        }
    }
}

impl fmt::Display for Value {
    /// Ruby's `inspect`-like form, used in error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => write!(f, "\"{}\"", crate::format::binary(s)),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Nil => f.write_str("nil"),
            Value::Const(c) => f.write_str(c),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Hash(pairs) => {
                f.write_str("{")?;
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k} => {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}
