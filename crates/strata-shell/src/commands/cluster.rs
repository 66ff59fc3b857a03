//! HBase's cluster commands (`move`, `balancer`, `balance_switch`), over the Strata Thrift
//! extensions; a standalone server answers that they need cluster mode.

use bytes::Bytes;
use strata_thrift::gen::volo_gen::hbase::Text;

use super::args::{arity, string};
use crate::error::{usage, Result};
use crate::session::Session;
use crate::value::Value;

/// `move 'ENCODED_REGIONNAME'[, 'SERVER_ID']`.
pub fn move_region(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 2)?;
    let region = string(args, 0, "region name")?;
    let server = match args.get(1) {
        None => None,
        Some(_) => Some(String::from_utf8_lossy(&string(args, 1, "server id")?).into_owned()),
    };
    let c = &s.client;
    let moved_to = c.call(
        "move",
        c.hbase()
            .strata_move_region(Some(Text(Bytes::from(region))), server.map(Into::into)),
    )?;
    s.say(format!("moved to {moved_to}"))
}

/// `assign 'REGIONNAME'`: serves a closed region again.
pub fn assign(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let region = string(args, 0, "region name")?;
    let c = &s.client;
    let owner = c.call(
        "assign",
        c.hbase().strata_assign(Some(Text(Bytes::from(region)))),
    )?;
    s.say(format!("assigned to {owner}"))
}

/// `unassign 'REGIONNAME'[, force]`: closes a region until it is assigned again. HBase's
/// `force` flag is accepted and changes nothing: a region is always closed gracefully.
pub fn unassign(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 2)?;
    let region = string(args, 0, "region name")?;
    let c = &s.client;
    c.call(
        "unassign",
        c.hbase().strata_unassign(Some(Text(Bytes::from(region)))),
    )
}

/// `balancer`: runs it once.
pub fn balancer(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 1)?;
    let c = &s.client;
    let moved = c.call("balancer", c.hbase().strata_balance())?;
    s.say(format!("{moved} region(s) moved"))?;
    s.say(if moved > 0 { "true" } else { "false" })
}

/// `balance_switch true|false`.
pub fn balance_switch(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 1)?;
    let on = match &args[0] {
        Value::Bool(b) => *b,
        Value::Str(v) if v.eq_ignore_ascii_case(b"true") => true,
        Value::Str(v) if v.eq_ignore_ascii_case(b"false") => false,
        other => {
            return Err(usage(format!(
                "balance_switch takes true or false, got {other}"
            )))
        }
    };
    let c = &s.client;
    let was = c.call("balance_switch", c.hbase().strata_balance_switch(Some(on)))?;
    s.say(format!("Previous balancer state : {was}"))
}

/// `decommission_regionservers 'SID'[, ...]` (or a list): the servers get no new region
/// and their regions move to the others.
pub fn decommission(s: &mut Session, args: &[Value]) -> Result<()> {
    let servers = server_names(args, "decommission_regionservers")?;
    let c = &s.client;
    for server in servers {
        let moved = c.call(
            "decommission_regionservers",
            c.hbase()
                .strata_decommission(Some(server.clone().into()), Some(true)),
        )?;
        s.say(format!("{server}: {moved} region(s) moved off"))?;
    }
    Ok(())
}

/// `recommission_regionserver 'SID'`.
pub fn recommission(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 2)?;
    let server = String::from_utf8_lossy(&string(args, 0, "server id")?).into_owned();
    let c = &s.client;
    c.call(
        "recommission_regionserver",
        c.hbase()
            .strata_decommission(Some(server.into()), Some(false)),
    )?;
    Ok(())
}

/// `list_decommissioned_regionservers`.
pub fn list_decommissioned(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 0)?;
    let c = &s.client;
    let servers = c.call(
        "list_decommissioned_regionservers",
        c.hbase().strata_list_decommissioned(),
    )?;
    s.say("SERVERNAME")?;
    for server in &servers {
        s.say(server.as_str())?;
    }
    s.say(format!("{} row(s)", servers.len()))
}

/// Server ids given one by one or as one list; a trailing `true`/`false` (HBase's
/// offload flag) is accepted and ignored: regions always move off.
fn server_names(args: &[Value], command: &str) -> Result<Vec<String>> {
    let text = |v: &Value| match v {
        Value::Str(s) => Ok(String::from_utf8_lossy(s).into_owned()),
        other => Err(usage(format!("{command} takes server ids, got {other}"))),
    };
    let args = match args.last() {
        Some(Value::Bool(_)) => &args[..args.len() - 1],
        _ => args,
    };
    let names: Vec<String> = match args {
        [Value::Array(items)] => items.iter().map(text).collect::<Result<_>>()?,
        _ => args.iter().map(text).collect::<Result<_>>()?,
    };
    if names.is_empty() {
        return Err(usage(format!("{command} takes at least one server id")));
    }
    Ok(names)
}
