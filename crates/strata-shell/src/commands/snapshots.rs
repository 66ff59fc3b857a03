//! HBase's snapshot commands: `snapshot`, `list_snapshots`, `delete_snapshot`,
//! `clone_snapshot` and `restore_snapshot`, over the Strata Thrift extensions.

use bytes::Bytes;
use strata_thrift::gen::volo_gen::hbase::Text;

use super::args::{arity, string, text};
use crate::error::{usage, Result};
use crate::format::{header, iso8601, row_count, two_columns};
use crate::session::Session;
use crate::value::Value;

/// `snapshot 'table', 'name'` (HBase's optional `{SKIP_FLUSH => true}` is refused: a
/// snapshot here always flushes first).
pub fn snapshot(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 2, 2)?;
    let table = string(args, 0, "table name")?;
    let name = text(args, 1, "snapshot name")?;
    let c = &s.client;
    c.call(
        "snapshot",
        c.hbase()
            .strata_snapshot(Some(Text(Bytes::from(table))), Some(name.into())),
    )
}

/// `list_snapshots ['regex']`.
pub fn list_snapshots(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 1)?;
    let pattern = match args.first() {
        None => None,
        Some(_) => {
            let text = text(args, 0, "snapshot name pattern")?;
            let re = regex::Regex::new(&format!("^(?:{text})$"))
                .map_err(|e| usage(format!("bad pattern {text:?}: {e}")))?;
            Some(re)
        }
    };
    let c = &s.client;
    let snapshots = c.call("list_snapshots", c.hbase().strata_list_snapshots())?;
    let shown: Vec<_> = snapshots
        .iter()
        .filter(|snap| {
            let name = snap.name.as_deref().unwrap_or("");
            pattern.as_ref().is_none_or(|re| re.is_match(name))
        })
        .collect();
    s.say(header("SNAPSHOT", "TABLE + CREATION TIME"))?;
    for snap in &shown {
        let table = snap
            .table
            .as_ref()
            .map(|t| String::from_utf8_lossy(&t.0).into_owned())
            .unwrap_or_default();
        let when = iso8601(snap.creation_time.unwrap_or(0));
        let name = snap.name.as_deref().unwrap_or("");
        s.say(two_columns(name, &format!("{table} ({when})")))?;
    }
    s.say(row_count(shown.len() as u64))?;
    let names: Vec<String> = shown
        .iter()
        .map(|snap| format!("\"{}\"", snap.name.as_deref().unwrap_or("")))
        .collect();
    s.result(format!("=> [{}]", names.join(", ")));
    Ok(())
}

/// `delete_snapshot 'name'`.
pub fn delete_snapshot(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let name = text(args, 0, "snapshot name")?;
    let c = &s.client;
    c.call(
        "delete_snapshot",
        c.hbase().strata_delete_snapshot(Some(name.into())),
    )
}

/// `clone_snapshot 'name', 'new_table'`.
pub fn clone_snapshot(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 2, 2)?;
    let name = text(args, 0, "snapshot name")?;
    let table = string(args, 1, "table name")?;
    let c = &s.client;
    c.call(
        "clone_snapshot",
        c.hbase()
            .strata_clone_snapshot(Some(name.into()), Some(Text(Bytes::from(table)))),
    )
}

/// `restore_snapshot 'name'` (the table must be disabled).
pub fn restore_snapshot(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let name = text(args, 0, "snapshot name")?;
    let c = &s.client;
    c.call(
        "restore_snapshot",
        c.hbase().strata_restore_snapshot(Some(name.into())),
    )
}
