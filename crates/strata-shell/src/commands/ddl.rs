//! Namespace and table administration: create, alter, describe, list, enable, drop, ...

use bytes::Bytes;
use pilota::FastStr;
use regex::Regex;
use strata_thrift::gen::volo_gen::hbase::{TStrataFamily, Text};

use super::args::{arity, string, text, Options};
use super::family::{self, describe_line, named};
use super::presplit;
use super::table_attrs::{self, TableAttrs, UNSETTABLE};
use crate::error::{usage, Result, ShellError};
use crate::format::row_count;
use crate::session::Session;
use crate::value::Value;

fn t(bytes: impl Into<Bytes>) -> Option<Text> {
    Some(Text(bytes.into()))
}

pub fn create_namespace(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 2)?;
    let name = text(args, 0, "namespace name")?;
    let c = &s.client;
    c.call(
        "create_namespace",
        c.hbase().strata_create_namespace(Some(name.into())),
    )
}

pub fn drop_namespace(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let name = text(args, 0, "namespace name")?;
    let c = &s.client;
    c.call(
        "drop_namespace",
        c.hbase().strata_delete_namespace(Some(name.into())),
    )
}

pub fn list_namespace(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 1)?;
    let pattern = matcher(args)?;
    let c = &s.client;
    let mut names: Vec<String> = c
        .call("list_namespace", c.hbase().strata_list_namespaces())?
        .into_iter()
        .map(|n| n.to_string())
        .filter(|n| pattern.is_match(n))
        .collect();
    names.sort();
    s.say("NAMESPACE")?;
    for n in &names {
        s.say(n)?;
    }
    s.say(row_count(names.len() as u64))
}

/// The optional regular expression of `list`: it must match the whole name, as in HBase.
fn matcher(args: &[Value]) -> Result<Regex> {
    let pattern = if args.is_empty() {
        ".*".to_string()
    } else {
        text(args, 0, "pattern")?
    };
    Regex::new(&format!("^(?:{pattern})$"))
        .map_err(|e| usage(format!("bad regular expression: {e}")))
}

/// Every table name, sorted.
pub fn fetch_table_names(s: &Session) -> Result<Vec<String>> {
    let c = &s.client;
    let mut names: Vec<String> = c
        .call("list", c.hbase().get_table_names())?
        .into_iter()
        .map(|n| String::from_utf8_lossy(&n.0).into_owned())
        .collect();
    names.sort();
    Ok(names)
}

pub fn list(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 1)?;
    let pattern = matcher(args)?;
    let names: Vec<String> = fetch_table_names(s)?
        .into_iter()
        .filter(|n| pattern.is_match(n))
        .collect();
    s.say("TABLE")?;
    for n in &names {
        s.say(n)?;
    }
    s.say(row_count(names.len() as u64))?;
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    s.result(format!("=> [{}]", quoted.join(", ")));
    Ok(())
}

pub fn create(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, usize::MAX)?;
    let table = text(args, 0, "table name")?;
    let mut families = Vec::new();
    let mut splits: Vec<Text> = Vec::new();
    let mut attrs = TableAttrs::default();
    for arg in &args[1..] {
        match arg {
            Value::Str(name) => families.push(named(name.clone())),
            Value::Hash(_) => {
                let mut opts = Options::new("create", arg)?;
                attrs.take_from(&mut opts)?;
                if family::is_family(&opts) {
                    families.push(family::from_options(&mut opts)?);
                } else {
                    let listed = opts.take_columns("SPLITS")?;
                    let computed = presplit::take_split_keys(&mut opts)?;
                    if listed.is_some() && computed.is_some() {
                        return Err(usage("give SPLITS or NUMREGIONS with SPLITALGO, not both"));
                    }
                    let keys = listed.or(computed).unwrap_or_default();
                    splits.extend(keys.into_iter().map(|k| Text(Bytes::from(k))));
                }
                opts.finish()?;
            }
            other => {
                return Err(usage(format!(
                    "a column family is a String or a Hash, got {other}"
                )))
            }
        }
    }
    if families.is_empty() {
        return Err(usage("a table needs at least one column family"));
    }
    let c = &s.client;
    let created = c.call(
        "create",
        c.hbase().strata_create_table(
            t(table.clone()),
            Some(families.clone()),
            Some(splits.clone()),
            attrs.durability.map(FastStr::from_static_str),
        ),
    );
    match created {
        Err(ShellError::Unsupported(_)) if splits.is_empty() && attrs.durability.is_none() => {
            let descriptors = families
                .iter()
                .map(family::to_column_descriptor)
                .collect::<Result<Vec<_>>>()?;
            c.call(
                "createTable",
                c.hbase().create_table(t(table.clone()), Some(descriptors)),
            )?;
        }
        other => other?,
    }
    s.forget_tables();
    s.say(format!("Created table {table}"))?;
    s.result(format!("=> Hbase::Table - {table}"));
    Ok(())
}

/// One change of an `alter`.
enum Change {
    /// Boxed: a family's settings dwarf the other changes.
    Upsert(Box<TStrataFamily>),
    Delete(Vec<u8>),
    Durability(&'static str),
}

/// The changes of one `alter` hash: a family's (with NAME), a deletion, or table attributes
/// (without NAME, or with METHOD => 'table_att'; 'table_att_unset' removes one).
fn hash_changes(opts: &mut Options, out: &mut Vec<Change>) -> Result<()> {
    if let Some(name) = opts.take_bytes("DELETE")? {
        out.push(Change::Delete(name));
        return Ok(());
    }
    let method = opts.take_string("METHOD")?.map(|m| m.to_ascii_lowercase());
    if method.as_deref() == Some("table_att_unset") {
        let name = opts.take_string("NAME")?.unwrap_or_default();
        if !UNSETTABLE.iter().any(|u| u.eq_ignore_ascii_case(&name)) {
            return Err(usage(format!(
                "table_att_unset: unknown table attribute {name:?} (only {})",
                UNSETTABLE.join(", ")
            )));
        }
        out.push(Change::Durability("USE_DEFAULT"));
        return Ok(());
    }
    let mut attrs = TableAttrs::default();
    attrs.take_from(opts)?;
    out.extend(attrs.durability.map(Change::Durability));
    match method.as_deref() {
        Some("delete") => {
            let name = opts
                .take_bytes("NAME")?
                .ok_or_else(|| usage("METHOD => 'delete' needs NAME"))?;
            out.push(Change::Delete(name));
        }
        Some("table_att") => {}
        Some(other) => {
            return Err(usage(format!(
                "unknown METHOD {other:?} (only 'delete', 'table_att' and 'table_att_unset')"
            )))
        }
        None if family::is_family(opts) => {
            out.push(Change::Upsert(Box::new(family::from_options(opts)?)))
        }
        None => {}
    }
    Ok(())
}

fn changes(args: &[Value]) -> Result<Vec<Change>> {
    let mut out = Vec::new();
    for arg in args {
        match arg {
            Value::Str(name) => out.push(Change::Upsert(Box::new(named(name.clone())))),
            Value::Hash(_) => {
                let mut opts = Options::new("alter", arg)?;
                hash_changes(&mut opts, &mut out)?;
                opts.finish()?;
            }
            other => {
                return Err(usage(format!(
                    "alter takes family names or hashes, got {other}"
                )))
            }
        }
    }
    Ok(out)
}

pub fn alter(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 2, usize::MAX)?;
    let table = text(args, 0, "table name")?;
    let changes = changes(&args[1..])?;
    s.say("Updating all regions with the new schema...")?;
    let c = &s.client;
    for change in changes {
        match change {
            Change::Upsert(f) => c.call(
                "alter",
                c.hbase().strata_alter_family(t(table.clone()), Some(*f)),
            )?,
            Change::Delete(name) => c.call(
                "alter",
                c.hbase().strata_delete_family(t(table.clone()), t(name)),
            )?,
            Change::Durability(d) => table_attrs::set_durability(c, &table, d)?,
        }
    }
    s.say("Done.")
}

pub fn describe(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let table = text(args, 0, "table name")?;
    let c = &s.client;
    let enabled = c.call(
        "describe",
        c.hbase()
            .is_table_enabled(Some(strata_thrift::gen::volo_gen::hbase::Bytes(
                Bytes::from(table.clone()),
            ))),
    )?;
    let families = match c.call(
        "describe",
        c.hbase().strata_describe_table(t(table.clone())),
    ) {
        Err(ShellError::Unsupported(_)) => {
            let mut d: Vec<TStrataFamily> = c
                .call(
                    "describe",
                    c.hbase().get_column_descriptors(t(table.clone())),
                )?
                .values()
                .map(family::from_column_descriptor)
                .collect();
            d.sort_by(|a, b| a.name.cmp(&b.name));
            d
        }
        other => other?,
    };
    let durability = table_attrs::fetch_durability(c, &table)?;
    let state = if enabled { "ENABLED" } else { "DISABLED" };
    s.say(format!("Table {table} is {state}"))?;
    s.say(table_attrs::table_line(&table, durability.as_deref()))?;
    s.say("COLUMN FAMILIES DESCRIPTION")?;
    for f in &families {
        s.say(describe_line(f))?;
    }
    s.say("")?;
    s.say(row_count(families.len() as u64))
}

pub fn exists(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let table = text(args, 0, "table name")?;
    let found = fetch_table_names(s)?.contains(&table);
    let does = if found { "does" } else { "does not" };
    s.say(format!("Table {table} {does} exist"))?;
    s.result(format!("=> {found}"));
    Ok(())
}

fn enabled(s: &Session, args: &[Value]) -> Result<bool> {
    arity(args, 1, 1)?;
    let table = string(args, 0, "table name")?;
    let c = &s.client;
    c.call(
        "is_enabled",
        c.hbase()
            .is_table_enabled(Some(strata_thrift::gen::volo_gen::hbase::Bytes(
                Bytes::from(table),
            ))),
    )
}

pub fn is_enabled(s: &mut Session, args: &[Value]) -> Result<()> {
    let e = enabled(s, args)?;
    s.say(e.to_string())?;
    s.result(format!("=> {e}"));
    Ok(())
}

pub fn is_disabled(s: &mut Session, args: &[Value]) -> Result<()> {
    let d = !enabled(s, args)?;
    s.say(d.to_string())?;
    s.result(format!("=> {d}"));
    Ok(())
}

fn table_bytes(args: &[Value]) -> Result<Option<strata_thrift::gen::volo_gen::hbase::Bytes>> {
    arity(args, 1, 1)?;
    let table = string(args, 0, "table name")?;
    Ok(Some(strata_thrift::gen::volo_gen::hbase::Bytes(
        Bytes::from(table),
    )))
}

pub fn enable(s: &mut Session, args: &[Value]) -> Result<()> {
    let table = table_bytes(args)?;
    let c = &s.client;
    c.call("enable", c.hbase().enable_table(table))
}

pub fn disable(s: &mut Session, args: &[Value]) -> Result<()> {
    let table = table_bytes(args)?;
    let c = &s.client;
    c.call("disable", c.hbase().disable_table(table))
}

pub fn drop(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let table = string(args, 0, "table name")?;
    let c = &s.client;
    c.call("drop", c.hbase().delete_table(t(table)))?;
    s.forget_tables();
    Ok(())
}

fn truncate_with(s: &mut Session, args: &[Value], preserve: bool) -> Result<()> {
    arity(args, 1, 1)?;
    let table = text(args, 0, "table name")?;
    s.say(format!("Truncating '{table}' table (it may take a while):"))?;
    s.say("Disabling table...")?;
    s.say("Truncating table...")?;
    let c = &s.client;
    c.call(
        "truncate",
        c.hbase().strata_truncate_table(t(table), Some(preserve)),
    )
}

pub fn truncate(s: &mut Session, args: &[Value]) -> Result<()> {
    truncate_with(s, args, false)
}

pub fn truncate_preserve(s: &mut Session, args: &[Value]) -> Result<()> {
    truncate_with(s, args, true)
}
