//! Help texts (Strata's own wording; the command names and argument forms are HBase's) and
//! the `help` command.

use super::args::{arity, text};
use super::COMMANDS;
use crate::error::{usage, Result};
use crate::session::Session;
use crate::value::Value;

pub const STATUS: &str = "Shows the server's state: tables, regions, namespaces.\n  strata> status";
pub const VERSION: &str = "Shows the shell's and the server's versions.\n  strata> version";
pub const WHOAMI: &str = "Shows the local user name.\n  strata> whoami";
pub const HELP: &str =
    "Lists the commands, or explains one.\n  strata> help\n  strata> help 'scan'";
pub const EXIT: &str = "Leaves the shell.\n  strata> exit";
pub const GRANT: &str = "Grants a user or @group permissions (letters of RWXCA: read, write, exec,\ncreate, admin), globally, on a @namespace, or on a table (optionally a family and a\ncolumn of it). Replaces what it held there.\n  strata> grant 'bob', 'RW', 't1'\n  strata> grant '@ops', 'RWXCA'\n  strata> grant 'bob', 'R', '@ns1'\n  strata> grant 'bob', 'R', 't1', 'cf', 'q'";
pub const REVOKE: &str = "Revokes every permission a user or @group holds at a scope (global when none).\n  strata> revoke 'bob', 't1'\n  strata> revoke '@ops'";
pub const USER_PERMISSION: &str = "Lists the permissions held globally, on a @namespace, or on a table.\n  strata> user_permission\n  strata> user_permission 't1'\n  strata> user_permission '@ns1'";
pub const CREATE_NAMESPACE: &str = "Creates a namespace.\n  strata> create_namespace 'ns1'";
pub const DROP_NAMESPACE: &str = "Drops an empty namespace.\n  strata> drop_namespace 'ns1'";
pub const LIST_NAMESPACE: &str = "Lists namespaces, optionally those matching a regular expression.\n  strata> list_namespace\n  strata> list_namespace 'ns.*'";
pub const CREATE: &str = "Creates a table: a name, then column families as names or hashes of
settings, optionally followed by table settings: SPLITS, and DURABILITY (USE_DEFAULT,
SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL) or its old form DEFERRED_LOG_FLUSH (true is
ASYNC_WAL), also accepted inside a family's hash.
Family settings: NAME, VERSIONS, MIN_VERSIONS, TTL (seconds), COMPRESSION
(NONE, GZ, LZ4, ZSTD, SNAPPY), BLOOMFILTER (NONE, ROW, ROWCOL), BLOCKSIZE, IN_MEMORY,
BLOCKCACHE, KEEP_DELETED_CELLS, DATA_BLOCK_ENCODING (NONE, PREFIX), STORAGE_POLICY
(ALL_SSD, ONE_SSD, HOT, WARM, COLD, LAZY_PERSIST; also in METADATA or CONFIGURATION),
ROW_CACHE (true: repeated point reads are answered by the server's row cache).
  strata> create 't1', 'cf'
  strata> create 'ns1:t1', 'cf1', 'cf2'
  strata> create 't1', {NAME => 'cf', VERSIONS => 3, TTL => 86400, COMPRESSION => 'SNAPPY'}
  strata> create 't1', 'cf', {SPLITS => ['g', 'p']}
  strata> create 't1', {NAME => 'cf'}, DURABILITY => 'ASYNC_WAL'";
pub const ALTER: &str = "Adds a column family, changes its settings, or deletes it; sets or
removes the table's DURABILITY (or DEFERRED_LOG_FLUSH).
  strata> alter 't1', 'cf2'
  strata> alter 't1', {NAME => 'cf', VERSIONS => 5}
  strata> alter 't1', {NAME => 'cf2', METHOD => 'delete'}
  strata> alter 't1', 'delete' => 'cf2'
  strata> alter 't1', DURABILITY => 'ASYNC_WAL'
  strata> alter 't1', METHOD => 'table_att_unset', NAME => 'DURABILITY'";
pub const DESCRIBE: &str = "Shows a table's state, its DURABILITY when set, and its column
families.\n  strata> describe 't1'";
pub const LIST: &str = "Lists tables, optionally those matching a regular expression.\n  strata> list\n  strata> list 'ns1:.*'";
pub const EXISTS: &str = "Tells whether a table exists.\n  strata> exists 't1'";
pub const IS_ENABLED: &str = "Tells whether a table is enabled.\n  strata> is_enabled 't1'";
pub const IS_DISABLED: &str = "Tells whether a table is disabled.\n  strata> is_disabled 't1'";
pub const ENABLE: &str = "Enables a table.\n  strata> enable 't1'";
pub const DISABLE: &str =
    "Disables a table: reads and writes are refused until it is enabled.\n  strata> disable 't1'";
pub const DROP: &str = "Deletes a disabled table and its data.\n  strata> drop 't1'";
pub const TRUNCATE: &str =
    "Disables a table, deletes all its data and enables it again.\n  strata> truncate 't1'";
pub const TRUNCATE_PRESERVE: &str =
    "Like truncate, keeping the table's region boundaries.\n  strata> truncate_preserve 't1'";
pub const PUT: &str = "Writes one cell: table, row, column, value and optionally a timestamp.
  strata> put 't1', 'r1', 'cf:q', 'value'
  strata> put 't1', \"r\\x00\", 'cf:q', 'value', 1700000000000";
pub const GET: &str = "Reads one row; options: COLUMN/COLUMNS, TIMESTAMP, TIMERANGE => [from, to],
VERSIONS, FILTER (HBase filter language).
  strata> get 't1', 'r1'
  strata> get 't1', 'r1', 'cf:q1', 'cf:q2'
  strata> get 't1', 'r1', {COLUMN => 'cf:q', VERSIONS => 3}
  strata> get 't1', 'r1', {TIMERANGE => [0, 1700000000000]}
  strata> get 't1', 'r1', {FILTER => \"ValueFilter(=, 'binary:v')\"}";
pub const SCAN: &str =
    "Reads rows; options: COLUMNS, STARTROW, STOPROW, ROWPREFIXFILTER, LIMIT, FILTER,
VERSIONS, TIMESTAMP, TIMERANGE, REVERSED, CACHE.
  strata> scan 't1'
  strata> scan 't1', {COLUMNS => ['cf:a', 'cf:b'], LIMIT => 10, STARTROW => 'r1'}
  strata> scan 't1', {ROWPREFIXFILTER => 'user1', REVERSED => true}
  strata> scan 't1', {FILTER => \"PrefixFilter('r') AND KeyOnlyFilter()\"}";
pub const COUNT: &str = "Counts a table's rows; INTERVAL sets how often progress prints, CACHE the
rows fetched per call.
  strata> count 't1'
  strata> count 't1', INTERVAL => 100000, CACHE => 1000";
pub const DELETE: &str = "Deletes every version of a cell (up to a timestamp, when given).
  strata> delete 't1', 'r1', 'cf:q'
  strata> delete 't1', 'r1', 'cf:q', 1700000000000";
pub const DELETEALL: &str = "Deletes a row, or one column of it, optionally up to a timestamp.
  strata> deleteall 't1', 'r1'
  strata> deleteall 't1', 'r1', 'cf:q'
  strata> deleteall 't1', 'r1', 'cf:q', 1700000000000";
pub const INCR: &str = "Adds to a counter (by 1 unless given) and shows its new value.
  strata> incr 't1', 'r1', 'cf:hits'
  strata> incr 't1', 'r1', 'cf:hits', 10";
pub const GET_COUNTER: &str =
    "Shows a counter's value.\n  strata> get_counter 't1', 'r1', 'cf:hits'";
pub const APPEND: &str =
    "Appends to a cell's value and shows the result.\n  strata> append 't1', 'r1', 'cf:q', 'more'";
pub const FLUSH: &str = "Writes a table's (or a region's table's) in-memory data to disk.
  strata> flush 't1'
  strata> flush 'ENCODED_REGION_NAME'";
pub const COMPACT: &str = "Compacts a table's files.\n  strata> compact 't1'";
pub const MAJOR_COMPACT: &str =
    "Rewrites all of a table's files into one per family.\n  strata> major_compact 't1'";
pub const SPLIT: &str =
    "Splits a table's regions near their middles, or at a row key, or one region.
  strata> split 't1'
  strata> split 't1', 'm'
  strata> split 'ENCODED_REGION_NAME'";
pub const MERGE_REGION: &str =
    "Merges two adjacent regions, named as list_regions shows them (encoded or full).
  strata> merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME'
  strata> merge_region ['ENCODED_REGIONNAME', 'ENCODED_REGIONNAME']";
pub const MOVE: &str = "Moves a region to a server (cluster mode; the server's id as `strata cluster status` shows it), or to another live server when none is given.
  strata> move 'ENCODED_REGIONNAME'
  strata> move 'ENCODED_REGIONNAME', 'SERVER_ID'";
pub const ASSIGN: &str = "Serves a region closed by `unassign` again, on the least loaded server (cluster mode); a region already served stays where it is.
  strata> assign 'ENCODED_REGIONNAME'";
pub const UNASSIGN: &str = "Closes a region (cluster mode): its server flushes and closes it, and no server serves it until `assign`; requests for it wait, then fail.
  strata> unassign 'ENCODED_REGIONNAME'";
pub const BALANCER: &str =
    "Runs the balancer now (cluster mode): evens out the regions per server; prints how many moved.\n  strata> balancer";
pub const BALANCE_SWITCH: &str =
    "Turns the balancer on or off (cluster mode); prints whether it was on.
  strata> balance_switch true
  strata> balance_switch false";
pub const DECOMMISSION: &str = "Decommissions servers (cluster mode): they get no new region and their regions move to the others now, for a rolling restart.
  strata> decommission_regionservers 'SERVER_ID'
  strata> decommission_regionservers ['SERVER_ID', 'SERVER_ID']";
pub const RECOMMISSION: &str =
    "Lets a decommissioned server take regions again (cluster mode).\n  strata> recommission_regionserver 'SERVER_ID'";
pub const LIST_DECOMMISSIONED: &str =
    "Lists the decommissioned servers (cluster mode).\n  strata> list_decommissioned_regionservers";
pub const LIST_REGIONS: &str =
    "Lists a table's regions with their names and key ranges.\n  strata> list_regions 't1'";

/// `help` or `help 'command'`.
pub fn help(session: &mut Session, args: &[Value]) -> Result<()> {
    arity(args, 0, 1)?;
    if args.len() == 1 {
        let name = text(args, 0, "command name")?;
        let cmd = super::find(&name).ok_or_else(|| usage(format!("no command named '{name}'")))?;
        return session.say(cmd.help);
    }
    session.say(
        "Strata shell: HBase shell commands over Thrift. Type 'help \"COMMAND\"' for one command.",
    )?;
    let mut groups: Vec<&str> = Vec::new();
    for c in COMMANDS {
        if !groups.contains(&c.group) {
            groups.push(c.group);
        }
    }
    for group in groups {
        let names: Vec<&str> = COMMANDS
            .iter()
            .filter(|c| c.group == group)
            .map(|c| c.name)
            .collect();
        session.say("")?;
        session.say(format!("  Group name: {group}"))?;
        session.say(format!("  Commands: {}", names.join(", ")))?;
    }
    Ok(())
}

pub const SNAPSHOT: &str = "Takes a snapshot of a table: its regions are flushed and their files kept by hard links, so it copies no data (standalone mode).
  strata> snapshot 'sourceTable', 'snapshotName'";
pub const LIST_SNAPSHOTS: &str =
    "Lists the snapshots, optionally those whose name matches a regular expression.
  strata> list_snapshots
  strata> list_snapshots 'abc.*'";
pub const DELETE_SNAPSHOT: &str =
    "Deletes a snapshot. Tables cloned or restored from it keep their data.
  strata> delete_snapshot 'snapshotName'";
pub const CLONE_SNAPSHOT: &str =
    "Creates a new table from a snapshot, with the snapshot's schema, regions and data.
  strata> clone_snapshot 'snapshotName', 'tableName'
  strata> clone_snapshot 'snapshotName', 'namespace:tableName'";
pub const RESTORE_SNAPSHOT: &str = "Puts a table back as the snapshot recorded it: schema, regions and data. The table must be disabled, and stays disabled.
  strata> disable 'tableName'
  strata> restore_snapshot 'snapshotName'";
