//! Writes: put, delete, deleteall, incr, get_counter, append.

use bytes::Bytes;
use strata_thrift::gen::volo_gen::hbase::{Mutation, TAppend, Text};

use super::args::{arity, opt_int, string};
use crate::error::{usage, Result, ShellError};
use crate::format::binary;
use crate::session::Session;
use crate::value::Value;

fn t(bytes: Vec<u8>) -> Option<Text> {
    Some(Text(Bytes::from(bytes)))
}

/// An optional timestamp argument: a non-negative integer.
fn timestamp(args: &[Value], i: usize) -> Result<Option<i64>> {
    match opt_int(args, i, "timestamp")? {
        Some(ts) if ts < 0 => Err(usage(format!("timestamp must not be negative, got {ts}"))),
        other => Ok(other),
    }
}

/// `family:qualifier`: HBase's shell refuses a put to a bare family name.
fn column(args: &[Value], i: usize) -> Result<Vec<u8>> {
    let c = string(args, i, "column")?;
    if !c.contains(&b':') {
        return Err(usage(format!(
            "column {} must be family:qualifier",
            binary(&c)
        )));
    }
    Ok(c)
}

pub fn put(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 4, 5)?;
    let (table, row) = (string(args, 0, "table name")?, string(args, 1, "row")?);
    let column = column(args, 2)?;
    let value = match &args[3] {
        Value::Str(v) => v.clone(),
        // Ruby would call to_s on a number.
        Value::Int(i) => i.to_string().into_bytes(),
        other => return Err(usage(format!("value must be a String, got {other}"))),
    };
    let ts = timestamp(args, 4)?;
    let m = vec![Mutation {
        is_delete: Some(false),
        column: t(column),
        value: t(value),
        write_to_wal: Some(true),
    }];
    let c = &s.client;
    match ts {
        Some(ts) => c.call(
            "put",
            c.hbase()
                .mutate_row_ts(t(table), t(row), Some(m), Some(ts), None),
        ),
        None => c.call("put", c.hbase().mutate_row(t(table), t(row), Some(m), None)),
    }
}

pub fn delete(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 3, 4)?;
    let (table, row) = (string(args, 0, "table name")?, string(args, 1, "row")?);
    let column = string(args, 2, "column")?;
    let ts = timestamp(args, 3)?;
    let c = &s.client;
    match ts {
        Some(ts) => c.call(
            "delete",
            c.hbase()
                .delete_all_ts(t(table), t(row), t(column), Some(ts), None),
        ),
        None => c.call(
            "delete",
            c.hbase().delete_all(t(table), t(row), t(column), None),
        ),
    }
}

pub fn deleteall(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 2, 4)?;
    let (table, row) = (string(args, 0, "table name")?, string(args, 1, "row")?);
    // `deleteall 't', 'r', ts` is not HBase syntax; a column comes before a timestamp.
    let column = match args.get(2) {
        None => None,
        Some(Value::Str(c)) => Some(c.clone()),
        Some(other) => return Err(usage(format!("column must be a String, got {other}"))),
    };
    let ts = timestamp(args, 3)?;
    let c = &s.client;
    match (column, ts) {
        (None, _) => c.call(
            "deleteall",
            c.hbase().delete_all_row(t(table), t(row), None),
        ),
        (Some(col), None) => c.call(
            "deleteall",
            c.hbase().delete_all(t(table), t(row), t(col), None),
        ),
        (Some(col), Some(ts)) => c.call(
            "deleteall",
            c.hbase()
                .delete_all_ts(t(table), t(row), t(col), Some(ts), None),
        ),
    }
}

pub fn incr(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 3, 4)?;
    let (table, row) = (string(args, 0, "table name")?, string(args, 1, "row")?);
    let column = column(args, 2)?;
    let by = opt_int(args, 3, "increment")?.unwrap_or(1);
    let c = &s.client;
    let value = c.call(
        "incr",
        c.hbase()
            .atomic_increment(t(table), t(row), t(column), Some(by)),
    )?;
    s.say(format!("COUNTER VALUE = {value}"))
}

pub fn get_counter(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 3, 3)?;
    let (table, row) = (string(args, 0, "table name")?, string(args, 1, "row")?);
    let column = column(args, 2)?;
    let c = &s.client;
    let cells = c.call(
        "get_counter",
        c.hbase().get_ver_ts(
            t(table),
            t(row),
            t(column.clone()),
            Some(i64::MAX),
            Some(1),
            None,
        ),
    )?;
    let Some(cell) = cells.first() else {
        return s.say("No counter found at specified coordinates");
    };
    let bytes = cell.value.as_ref().map(|v| v.0.clone()).unwrap_or_default();
    let raw: [u8; 8] = bytes.as_ref().try_into().map_err(|_| {
        ShellError::Corruption(format!(
            "{} holds {} bytes, not an 8-byte counter",
            binary(&column),
            bytes.len()
        ))
    })?;
    s.say(format!("COUNTER VALUE = {}", i64::from_be_bytes(raw)))
}

pub fn append(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 4, 4)?;
    let (table, row) = (string(args, 0, "table name")?, string(args, 1, "row")?);
    let column = column(args, 2)?;
    let value = string(args, 3, "value")?;
    let a = TAppend {
        table: t(table),
        row: t(row),
        columns: Some(vec![Text(Bytes::from(column))]),
        values: Some(vec![Text(Bytes::from(value))]),
    };
    let c = &s.client;
    let cells = c.call("append", c.hbase().append(Some(a)))?;
    let current = cells
        .first()
        .and_then(|c| c.value.as_ref())
        .map(|v| binary(&v.0))
        .unwrap_or_default();
    s.say(format!("CURRENT VALUE = {current}"))
}
