//! Checking a command's arguments: counts, kinds and option hashes, with HBase-like messages.

use crate::error::{usage, Result};
use crate::value::Value;

/// Fails unless `min <= args.len() <= max`.
pub fn arity(args: &[Value], min: usize, max: usize) -> Result<()> {
    let n = args.len();
    if (min..=max).contains(&n) {
        return Ok(());
    }
    let expected = if min == max {
        min.to_string()
    } else if max == usize::MAX {
        format!("{min}+")
    } else {
        format!("{min}..{max}")
    };
    Err(usage(format!(
        "wrong number of arguments (given {n}, expected {expected})"
    )))
}

/// The string argument at `i`, named `what` in errors.
pub fn string(args: &[Value], i: usize, what: &str) -> Result<Vec<u8>> {
    match args.get(i) {
        Some(Value::Str(s)) => Ok(s.clone()),
        Some(other) => Err(usage(format!(
            "{what} must be a String, got {} {other}",
            other.kind()
        ))),
        None => Err(usage(format!("{what} is missing"))),
    }
}

/// A string argument that must be text (table and namespace names).
pub fn text(args: &[Value], i: usize, what: &str) -> Result<String> {
    String::from_utf8(string(args, i, what)?)
        .map_err(|_| usage(format!("{what} must be UTF-8 text")))
}

/// The integer argument at `i`, if present.
pub fn opt_int(args: &[Value], i: usize, what: &str) -> Result<Option<i64>> {
    match args.get(i) {
        None => Ok(None),
        Some(Value::Int(v)) => Ok(Some(*v)),
        Some(other) => Err(usage(format!(
            "{what} must be an Integer, got {} {other}",
            other.kind()
        ))),
    }
}

/// A column list: one string or an array of strings.
pub fn columns(value: &Value, what: &str) -> Result<Vec<Vec<u8>>> {
    match value {
        Value::Str(s) => Ok(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::Str(s) => Ok(s.clone()),
                other => Err(usage(format!("{what} must list Strings, got {other}"))),
            })
            .collect(),
        other => Err(usage(format!(
            "{what} must be a String or an Array, got {other}"
        ))),
    }
}

/// An option hash being read: every key must be taken, so a misspelt key is an error.
pub struct Options {
    command: &'static str,
    pairs: Vec<(String, Value)>,
}

impl Options {
    pub fn new(command: &'static str, value: &Value) -> Result<Options> {
        let Some(hash) = value.as_hash() else {
            return Err(usage(format!("expected a Hash of options, got {value}")));
        };
        let mut pairs = Vec::new();
        for (k, v) in hash {
            let key = k
                .key_text()
                .ok_or_else(|| usage(format!("option names are constants or Strings, got {k}")))?;
            pairs.push((key.to_ascii_uppercase(), v.clone()));
        }
        Ok(Options { command, pairs })
    }

    /// No options at all.
    pub fn empty(command: &'static str) -> Options {
        Options {
            command,
            pairs: Vec::new(),
        }
    }

    /// True if `key` is there and not taken yet.
    pub fn has(&self, key: &str) -> bool {
        self.pairs.iter().any(|(k, _)| k == key)
    }

    pub fn take(&mut self, key: &str) -> Option<Value> {
        let i = self.pairs.iter().position(|(k, _)| k == key)?;
        Some(self.pairs.remove(i).1)
    }

    pub fn take_bytes(&mut self, key: &str) -> Result<Option<Vec<u8>>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s)),
            Some(other) => Err(usage(format!("{key} must be a String, got {other}"))),
        }
    }

    pub fn take_string(&mut self, key: &str) -> Result<Option<String>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Str(s)) => String::from_utf8(s)
                .map(Some)
                .map_err(|_| usage(format!("{key} must be UTF-8 text"))),
            Some(Value::Const(c)) => Ok(Some(c)),
            Some(other) => Err(usage(format!("{key} must be a String, got {other}"))),
        }
    }

    pub fn take_int(&mut self, key: &str) -> Result<Option<i64>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Int(v)) => Ok(Some(v)),
            // HBase's shell also takes numbers written as strings ('65536').
            Some(Value::Str(s)) => std::str::from_utf8(&s)
                .ok()
                .and_then(|t| t.trim().parse().ok())
                .map(Some)
                .ok_or_else(|| usage(format!("{key} must be an Integer"))),
            Some(other) => Err(usage(format!("{key} must be an Integer, got {other}"))),
        }
    }

    /// A positive integer that fits an i32 (counts and sizes).
    pub fn take_count(&mut self, key: &str) -> Result<Option<i32>> {
        match self.take_int(key)? {
            None => Ok(None),
            Some(v) => i32::try_from(v)
                .ok()
                .filter(|v| *v > 0)
                .map(Some)
                .ok_or_else(|| usage(format!("{key} must be a positive Integer, got {v}"))),
        }
    }

    pub fn take_bool(&mut self, key: &str) -> Result<Option<bool>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(Value::Str(s)) if s.eq_ignore_ascii_case(b"true") => Ok(Some(true)),
            Some(Value::Str(s)) if s.eq_ignore_ascii_case(b"false") => Ok(Some(false)),
            Some(other) => Err(usage(format!("{key} must be true or false, got {other}"))),
        }
    }

    /// `[from, to]` timestamps.
    pub fn take_time_range(&mut self, key: &str) -> Result<Option<(i64, i64)>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Array(v)) => match v.as_slice() {
                [Value::Int(a), Value::Int(b)] if 0 <= *a && a <= b => Ok(Some((*a, *b))),
                _ => Err(usage(format!(
                    "{key} must be [from, to] with 0 <= from <= to"
                ))),
            },
            Some(other) => Err(usage(format!("{key} must be [from, to], got {other}"))),
        }
    }

    pub fn take_columns(&mut self, key: &str) -> Result<Option<Vec<Vec<u8>>>> {
        self.take(key).map(|v| columns(&v, key)).transpose()
    }

    /// Fails on any key not taken.
    pub fn finish(self) -> Result<()> {
        match self.pairs.first() {
            None => Ok(()),
            Some((key, _)) => Err(usage(format!("unknown option {key} for {}", self.command))),
        }
    }
}
