//! The command table: every command's name, group, help text and implementation.

pub mod args;
pub mod cluster;
pub mod ddl;
pub mod dml;
pub mod family;
pub mod help;
pub mod presplit;
pub mod read_spec;
pub mod reads;
pub mod security;
pub mod snapshots;
pub mod storage_policy;
pub mod table_attrs;
pub mod tools;

use crate::error::Result;
use crate::session::Session;
use crate::value::Value;

/// One shell command.
pub struct Command {
    pub name: &'static str,
    pub group: &'static str,
    pub help: &'static str,
    pub run: fn(&mut Session, &[Value]) -> Result<()>,
}

/// Every command, grouped as HBase's `help` lists them.
pub static COMMANDS: &[Command] = &[
    // general
    cmd("status", "general", help::STATUS, tools::status),
    cmd("version", "general", help::VERSION, tools::version),
    cmd("whoami", "general", help::WHOAMI, tools::whoami),
    cmd("help", "general", help::HELP, help::help),
    cmd("exit", "general", help::EXIT, tools::exit),
    cmd("quit", "general", help::EXIT, tools::exit),
    // namespace
    cmd(
        "create_namespace",
        "namespace",
        help::CREATE_NAMESPACE,
        ddl::create_namespace,
    ),
    cmd(
        "drop_namespace",
        "namespace",
        help::DROP_NAMESPACE,
        ddl::drop_namespace,
    ),
    cmd(
        "list_namespace",
        "namespace",
        help::LIST_NAMESPACE,
        ddl::list_namespace,
    ),
    // ddl
    cmd("create", "ddl", help::CREATE, ddl::create),
    cmd("alter", "ddl", help::ALTER, ddl::alter),
    cmd("describe", "ddl", help::DESCRIBE, ddl::describe),
    cmd("desc", "ddl", help::DESCRIBE, ddl::describe),
    cmd("list", "ddl", help::LIST, ddl::list),
    cmd("exists", "ddl", help::EXISTS, ddl::exists),
    cmd("is_enabled", "ddl", help::IS_ENABLED, ddl::is_enabled),
    cmd("is_disabled", "ddl", help::IS_DISABLED, ddl::is_disabled),
    cmd("enable", "ddl", help::ENABLE, ddl::enable),
    cmd("disable", "ddl", help::DISABLE, ddl::disable),
    cmd("drop", "ddl", help::DROP, ddl::drop),
    cmd("truncate", "dml", help::TRUNCATE, ddl::truncate),
    cmd(
        "truncate_preserve",
        "dml",
        help::TRUNCATE_PRESERVE,
        ddl::truncate_preserve,
    ),
    // dml
    cmd("put", "dml", help::PUT, dml::put),
    cmd("get", "dml", help::GET, reads::get),
    cmd("scan", "dml", help::SCAN, reads::scan),
    cmd("count", "dml", help::COUNT, reads::count),
    cmd("delete", "dml", help::DELETE, dml::delete),
    cmd("deleteall", "dml", help::DELETEALL, dml::deleteall),
    cmd("incr", "dml", help::INCR, dml::incr),
    cmd("get_counter", "dml", help::GET_COUNTER, dml::get_counter),
    cmd("append", "dml", help::APPEND, dml::append),
    // tools
    cmd("flush", "tools", help::FLUSH, tools::flush),
    cmd("compact", "tools", help::COMPACT, tools::compact),
    cmd(
        "major_compact",
        "tools",
        help::MAJOR_COMPACT,
        tools::major_compact,
    ),
    cmd("split", "tools", help::SPLIT, tools::split),
    cmd(
        "merge_region",
        "tools",
        help::MERGE_REGION,
        tools::merge_region,
    ),
    cmd(
        "list_regions",
        "tools",
        help::LIST_REGIONS,
        tools::list_regions,
    ),
    // snapshots
    cmd("snapshot", "snapshots", help::SNAPSHOT, snapshots::snapshot),
    cmd(
        "list_snapshots",
        "snapshots",
        help::LIST_SNAPSHOTS,
        snapshots::list_snapshots,
    ),
    cmd(
        "delete_snapshot",
        "snapshots",
        help::DELETE_SNAPSHOT,
        snapshots::delete_snapshot,
    ),
    cmd(
        "clone_snapshot",
        "snapshots",
        help::CLONE_SNAPSHOT,
        snapshots::clone_snapshot,
    ),
    cmd(
        "restore_snapshot",
        "snapshots",
        help::RESTORE_SNAPSHOT,
        snapshots::restore_snapshot,
    ),
    cmd("grant", "security", help::GRANT, security::grant),
    cmd("revoke", "security", help::REVOKE, security::revoke),
    cmd(
        "user_permission",
        "security",
        help::USER_PERMISSION,
        security::user_permission,
    ),
    cmd("move", "cluster", help::MOVE, cluster::move_region),
    cmd("balancer", "cluster", help::BALANCER, cluster::balancer),
    cmd(
        "balance_switch",
        "cluster",
        help::BALANCE_SWITCH,
        cluster::balance_switch,
    ),
    cmd("assign", "cluster", help::ASSIGN, cluster::assign),
    cmd("unassign", "cluster", help::UNASSIGN, cluster::unassign),
    cmd(
        "decommission_regionservers",
        "cluster",
        help::DECOMMISSION,
        cluster::decommission,
    ),
    cmd(
        "recommission_regionserver",
        "cluster",
        help::RECOMMISSION,
        cluster::recommission,
    ),
    cmd(
        "list_decommissioned_regionservers",
        "cluster",
        help::LIST_DECOMMISSIONED,
        cluster::list_decommissioned,
    ),
];

const fn cmd(
    name: &'static str,
    group: &'static str,
    help: &'static str,
    run: fn(&mut Session, &[Value]) -> Result<()>,
) -> Command {
    Command {
        name,
        group,
        help,
        run,
    }
}

pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// Commands that print no `Took ...` line.
pub fn is_quiet(name: &str) -> bool {
    matches!(name, "help" | "exit" | "quit")
}

/// Every command name, for completion.
pub fn names() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().map(|c| c.name)
}

#[cfg(test)]
mod validation_tests;
