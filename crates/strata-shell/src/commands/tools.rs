//! Region tools (flush, compact, split, merge, list_regions) and general commands.

use bytes::Bytes;
use strata_thrift::gen::volo_gen::hbase::{self as idl, Text};

use super::args::{arity, string};
use crate::error::{usage, Result, ShellError};
use crate::format::{binary, row_count};
use crate::session::Session;
use crate::value::Value;

fn t(bytes: Vec<u8>) -> Option<Text> {
    Some(Text(Bytes::from(bytes)))
}

fn name_bytes(bytes: Vec<u8>) -> Option<idl::Bytes> {
    Some(idl::Bytes(Bytes::from(bytes)))
}

pub fn flush(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 2)?;
    let name = string(args, 0, "table or region name")?;
    if args.len() == 2 {
        string(args, 1, "column family")?;
    }
    let c = &s.client;
    c.call("flush", c.hbase().strata_flush(t(name)))
}

/// `compact 't'` / `compact 't', 'cf'` (Strata compacts whole tables, so the family only
/// has to be a String).
fn compact_args(args: &[Value]) -> Result<Vec<u8>> {
    arity(args, 1, 3)?;
    for i in 1..args.len() {
        string(args, i, "column family or compaction type")?;
    }
    string(args, 0, "table or region name")
}

pub fn compact(s: &mut Session, args: &[Value]) -> Result<()> {
    let name = compact_args(args)?;
    let c = &s.client;
    c.call("compact", c.hbase().compact(name_bytes(name)))
}

pub fn major_compact(s: &mut Session, args: &[Value]) -> Result<()> {
    let name = compact_args(args)?;
    let c = &s.client;
    c.call("major_compact", c.hbase().major_compact(name_bytes(name)))
}

pub fn split(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 2)?;
    let name = string(args, 0, "table or region name")?;
    let point = match args.get(1) {
        None => None,
        Some(_) => Some(string(args, 1, "split point")?),
    };
    let c = &s.client;
    c.call("split", c.hbase().strata_split(t(name), point.and_then(t)))
}

pub fn merge_region(s: &mut Session, args: &[Value]) -> Result<()> {
    // merge_region 'A', 'B' [, force] or merge_region ['A', 'B'] [, force].
    let names: Vec<Vec<u8>> = match args {
        [Value::Array(items), rest @ ..] if rest.len() <= 1 => items
            .iter()
            .map(|v| match v {
                Value::Str(s) => Ok(s.clone()),
                other => Err(usage(format!("region names are Strings, got {other}"))),
            })
            .collect::<Result<_>>()?,
        _ => {
            arity(args, 2, 3)?;
            vec![
                string(args, 0, "region name")?,
                string(args, 1, "region name")?,
            ]
        }
    };
    let [a, b] = <[Vec<u8>; 2]>::try_from(names)
        .map_err(|n| usage(format!("merge_region takes two regions, got {}", n.len())))?;
    let c = &s.client;
    c.call("merge_region", c.hbase().strata_merge_regions(t(a), t(b)))
}

pub fn list_regions(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let table = string(args, 0, "table name")?;
    let c = &s.client;
    let regions = c.call("list_regions", c.hbase().get_table_regions(t(table)))?;
    s.say(format!(
        "{:<58} | {:<32} | {:<12} | {:<12}",
        "REGION_NAME", "ENCODED_NAME", "START_KEY", "END_KEY"
    ))?;
    for r in &regions {
        let name = r.name.as_ref().map(|n| n.0.to_vec()).unwrap_or_default();
        let full = String::from_utf8_lossy(&name).into_owned();
        let encoded = encoded_name(&full).unwrap_or_default().to_string();
        let key = |k: &Option<Text>| binary(k.as_ref().map(|k| k.0.as_ref()).unwrap_or_default());
        s.say(format!(
            "{:<58} | {:<32} | {:<12} | {:<12}",
            binary(&name),
            encoded,
            key(&r.start_key),
            key(&r.end_key)
        ))?;
    }
    s.say(row_count(regions.len() as u64))
}

/// HBase's one-line summary (its average load is regions per live server), then Strata's
/// counts. A server that predates the server counts is one master and one server.
pub fn status_text(st: &idl::TStrataStatus) -> String {
    let servers = st.live_servers.unwrap_or(1);
    let regions = st.regions.unwrap_or(0);
    let load = if servers > 0 {
        f64::from(regions) / f64::from(servers)
    } else {
        0.0
    };
    format!(
        "{} active master, {} backup masters, {servers} servers, {} dead, {load:.4} average load\n\
         {} namespaces, {} tables, {regions} regions (Strata {})",
        st.active_masters.unwrap_or(1),
        st.backup_masters.unwrap_or(0),
        st.dead_servers.unwrap_or(0),
        st.namespaces.unwrap_or(0),
        st.tables.unwrap_or(0),
        st.version.as_deref().unwrap_or("?"),
    )
}

/// The hex digits between the last two dots of a full region name.
pub fn encoded_name(full: &str) -> Option<&str> {
    full.strip_suffix('.')?.rsplit_once('.').map(|(_, e)| e)
}

pub fn status(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 1)?;
    let c = &s.client;
    match c.call("status", c.hbase().strata_status()) {
        Ok(st) => s.say(status_text(&st)),
        Err(ShellError::Unsupported(_)) => {
            // A server without the extension still answers Thrift1's own calls.
            let id = c.call_plain("status", c.hbase().get_cluster_id())?;
            s.say(format!(
                "cluster {id}: detailed status is not supported by this server"
            ))
        }
        Err(e) => Err(e),
    }
}

pub fn version(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 0)?;
    let c = &s.client;
    let server = match c.call("version", c.hbase().strata_status()) {
        Ok(st) => format!("Strata {}", st.version.as_deref().unwrap_or("?")),
        Err(ShellError::Unsupported(_)) => "not Strata (no version over Thrift1)".to_string(),
        Err(e) => return Err(e),
    };
    s.say(format!(
        "strata shell {}, server: {server}",
        env!("CARGO_PKG_VERSION")
    ))
}

pub fn whoami(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 0)?;
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "unknown".to_string());
    s.say(format!("{user} (auth:SIMPLE)"))?;
    s.say(format!("    groups: {user}"))
}

pub fn exit(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 1)?;
    s.exit_requested = true;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_line(st: &idl::TStrataStatus) -> String {
        status_text(st)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    }

    #[test]
    fn status_counts_every_server_of_a_cluster() {
        let st = idl::TStrataStatus {
            regions: Some(7),
            active_masters: Some(1),
            backup_masters: Some(2),
            live_servers: Some(3),
            dead_servers: Some(1),
            ..Default::default()
        };
        assert_eq!(
            first_line(&st),
            "1 active master, 2 backup masters, 3 servers, 1 dead, 2.3333 average load"
        );
    }

    #[test]
    fn a_server_without_counts_is_one_master_and_one_server() {
        let st = idl::TStrataStatus {
            version: Some("9.9".into()),
            namespaces: Some(2),
            tables: Some(3),
            regions: Some(5),
            ..Default::default()
        };
        assert_eq!(
            status_text(&st),
            "1 active master, 0 backup masters, 1 servers, 0 dead, 5.0000 average load\n\
             2 namespaces, 3 tables, 5 regions (Strata 9.9)"
        );
        let empty = idl::TStrataStatus {
            live_servers: Some(0),
            active_masters: Some(0),
            ..Default::default()
        };
        assert!(first_line(&empty).contains("0 servers, 0 dead, 0.0000 average load"));
    }
}
