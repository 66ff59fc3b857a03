//! HBase's `grant`, `revoke` and `user_permission`, with its shell's arguments:
//!
//! ```text
//! grant 'bob', 'RW'                     global
//! grant 'bob', 'RW', '@ns1'             a namespace
//! grant '@devs', 'R', 't1', 'cf', 'q'   a table, narrowed to a family and a column
//! revoke 'bob', 't1'                    every permission of bob on t1
//! user_permission 't1'                  who holds what on t1 (no argument: global)
//! ```

use pilota::FastStr;
use strata_thrift::gen::volo_gen::hbase::{TStrataPermission, Text};

use super::args::{arity, string, text};
use crate::error::Result;
use crate::session::Session;
use crate::value::Value;

/// The scope arguments from `i` on: `@namespace`, or a table with an optional family and
/// qualifier; none is global.
fn scope(args: &[Value], i: usize, mut permission: TStrataPermission) -> Result<TStrataPermission> {
    if args.len() <= i {
        return Ok(permission);
    }
    let first = text(args, i, "namespace (@ns) or table")?;
    if let Some(namespace) = first.strip_prefix('@') {
        arity(args, i + 1, i + 1)?;
        permission.namespace_name = Some(FastStr::from(namespace.to_string()));
        return Ok(permission);
    }
    permission.table_name = Some(Text(first.into_bytes().into()));
    if args.len() > i + 1 {
        permission.family = Some(Text(string(args, i + 1, "column family")?.into()));
    }
    if args.len() > i + 2 {
        permission.qualifier = Some(Text(string(args, i + 2, "column qualifier")?.into()));
    }
    Ok(permission)
}

pub fn grant(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 2, 5)?;
    let permission = TStrataPermission {
        user: Some(FastStr::from(text(args, 0, "user or @group")?)),
        actions: Some(FastStr::from(text(
            args,
            1,
            "permissions (letters of RWXCA)",
        )?)),
        ..Default::default()
    };
    let permission = scope(args, 2, permission)?;
    let c = &s.client;
    // HBase's shell replaces what the user held at the scope.
    c.call(
        "grant",
        c.hbase().strata_grant(Some(permission), Some(false)),
    )
}

pub fn revoke(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 1, 4)?;
    let permission = TStrataPermission {
        user: Some(FastStr::from(text(args, 0, "user or @group")?)),
        ..Default::default()
    };
    let permission = scope(args, 1, permission)?;
    let c = &s.client;
    c.call("revoke", c.hbase().strata_revoke(Some(permission)))
}

pub fn user_permission(s: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 3)?;
    let asked = scope(args, 0, TStrataPermission::default())?;
    let c = &s.client;
    let listed = c.call(
        "user_permission",
        c.hbase().strata_user_permissions(Some(asked)),
    )?;
    s.say("User                                   Namespace,Table,Family,Qualifier:Permission")?;
    for p in &listed {
        s.say(line(p))?;
    }
    s.say(format!("{} row(s)", listed.len()))
}

/// One permission as HBase's shell prints it.
fn line(p: &TStrataPermission) -> String {
    let text = |t: &Option<Text>| {
        t.as_ref()
            .map(|t| String::from_utf8_lossy(&t.0).into_owned())
            .unwrap_or_default()
    };
    let user = p.user.as_deref().unwrap_or_default();
    let actions: Vec<&str> = p
        .actions
        .as_deref()
        .unwrap_or_default()
        .chars()
        .map(|c| match c {
            'R' => "READ",
            'W' => "WRITE",
            'X' => "EXEC",
            'C' => "CREATE",
            'A' => "ADMIN",
            _ => "?",
        })
        .collect();
    let table = text(&p.table_name);
    let namespace = match (&p.namespace_name, table.split_once(':')) {
        (Some(ns), _) => ns.to_string(),
        (None, Some((ns, _))) => ns.to_string(),
        (None, None) if !table.is_empty() => "default".to_string(),
        (None, None) => String::new(),
    };
    let table = table.rsplit(':').next().unwrap_or_default().to_string();
    format!(
        " {user:<38} {namespace},{table},{},{}: [Permission: actions={}]",
        text(&p.family),
        text(&p.qualifier),
        actions.join(",")
    )
}
