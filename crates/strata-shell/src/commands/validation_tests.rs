//! Every command's argument checks, without a server: a bad form must fail as a usage error
//! before any call; a good form gets as far as the (unreachable) server.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::time::Duration;

use crate::error::ShellError;
use crate::parser::parse;
use crate::{Client, Session};

fn session() -> Session {
    // A port nobody listens on: bind one, then let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = Client::connect("127.0.0.1", port, Duration::from_secs(1)).unwrap();
    Session::new(
        client,
        Box::new(std::io::sink()),
        Box::new(std::io::sink()),
        strata_runtime::clock::system(),
    )
}

fn outcome(s: &mut Session, line: &str) -> Result<(), ShellError> {
    let mut statements = parse(line).unwrap();
    assert_eq!(statements.len(), 1, "{line}");
    let st = statements.remove(0);
    let cmd = super::find(&st.name).unwrap_or_else(|| panic!("no command {}", st.name));
    (cmd.run)(s, &st.args)
}

#[test]
fn bad_forms_are_usage_errors() {
    let mut s = session();
    let bad = [
        "create_namespace",
        "create_namespace 1",
        "drop_namespace 'a', 'b'",
        "list_namespace '('",
        "create",
        "create 't'",
        "create 't', 5",
        "create 't', {VERSIONS => 3}",
        "create 't', {NAME => 'f', VERSIONS => 0}",
        "create 't', {NAME => 'f', VERSIONS => 'x'}",
        "create 't', {NAME => 'f', TTL => [1]}",
        "create 't', {NAME => 'f', IN_MEMORY => 3}",
        "create 't', {NAME => 'f', COLOUR => 'red'}",
        "create 't', 'f', {SPLITS => 'a', NUMREGIONS => 3}",
        "alter 't'",
        "alter 't', 3",
        "alter 't', {NAME => 'f', METHOD => 'rename'}",
        "alter 't', {METHOD => 'delete'}",
        "describe",
        "list 1",
        "exists",
        "enable 't', 'u'",
        "disable",
        "drop 1",
        "truncate",
        "put 't', 'r', 'f:q'",
        "put 't', 'r', 'f', 'v'",
        "put 't', 'r', 'f:q', 'v', -1",
        "put 't', 'r', 'f:q', 'v', 'ts'",
        "put 't', 'r', 'f:q', [1]",
        "get 't'",
        "get 't', 'r', {VERSIONS => 0}",
        "get 't', 'r', {TIMERANGE => [5, 1]}",
        "get 't', 'r', {TIMERANGE => 5}",
        "get 't', 'r', {TIMESTAMP => 1, TIMERANGE => [0, 2]}",
        "get 't', 'r', {VERSIONS => 2, FILTER => 'KeyOnlyFilter()'}",
        "get 't', 'r', {COLUMN => 5}",
        "get 't', 'r', {LIMIT => 5}",
        "scan",
        "scan 't', 'r'",
        "scan 't', {LIMIT => 0}",
        "scan 't', {REVERSED => 'maybe'}",
        "scan 't', {STARTROW => 1}",
        "scan 't', {}, {}",
        "count 't', {INTERVAL => -1}",
        "count 't', {LIMIT => 1}",
        "delete 't', 'r'",
        "delete 't', 'r', 'f:q', 'x'",
        "deleteall 't'",
        "deleteall 't', 'r', 5",
        "incr 't', 'r'",
        "incr 't', 'r', 'f:q', 'x'",
        "get_counter 't', 'r'",
        "append 't', 'r', 'f:q'",
        "flush",
        "compact 't', 5",
        "major_compact",
        "split 't', 5",
        "merge_region 'a'",
        "merge_region ['a', 'b', 'c']",
        "merge_region [1, 2]",
        "list_regions",
        "status 'a', 'b'",
        "version 1",
        "whoami 1",
        "help 'nosuchcommand'",
        "snapshot 't'",
        "snapshot 't', 5",
        "snapshot 't', 's', {SKIP_FLUSH => true}",
        "list_snapshots 'a', 'b'",
        "list_snapshots '('",
        "delete_snapshot",
        "clone_snapshot 's'",
        "restore_snapshot 1",
    ];
    for line in bad {
        let r = outcome(&mut s, line);
        assert!(matches!(r, Err(ShellError::Usage(_))), "{line}: {r:?}");
    }
}

#[test]
fn good_forms_reach_the_server() {
    let mut s = session();
    let good = [
        "create_namespace 'ns'",
        "drop_namespace 'ns'",
        "list_namespace",
        "create 't', 'f'",
        "create 't', {NAME => 'f', VERSIONS => 3, TTL => 'FOREVER', BLOCKSIZE => '65536', KEEP_DELETED_CELLS => true}, {SPLITS => ['a']}",
        "alter 't', 'g', {NAME => 'f', VERSIONS => 2}, 'delete' => 'h'",
        "describe 't'",
        "list 't.*'",
        "exists 't'",
        "is_enabled 't'",
        "enable 't'",
        "disable 't'",
        "drop 't'",
        "truncate 't'",
        "truncate_preserve 't'",
        "put 't', 'r', 'f:q', 'v'",
        "put 't', 'r', 'f:q', 'v', 5",
        "get 't', 'r'",
        "get 't', 'r', 'f:q', ['f:z']",
        "get 't', 'r', {COLUMNS => ['f'], TIMERANGE => [1, 2], VERSIONS => 3}",
        "scan 't', {COLUMNS => 'f', STARTROW => 'a', STOPROW => 'b', LIMIT => 2, CACHE => 5}",
        "scan 't', ROWPREFIXFILTER => 'a', REVERSED => true, FILTER => 'KeyOnlyFilter()'",
        "count 't', INTERVAL => 10, CACHE => 100",
        "delete 't', 'r', 'f:q', 5",
        "deleteall 't', 'r', 'f:q'",
        "incr 't', 'r', 'f:q', 3",
        "get_counter 't', 'r', 'f:q'",
        "append 't', 'r', 'f:q', 'v'",
        "flush 't'",
        "compact 't', 'f'",
        "major_compact 't'",
        "split 't', 'k'",
        "merge_region 'a', 'b', true",
        "list_regions 't'",
        "status",
        "version",
        "snapshot 't', 's'",
        "list_snapshots",
        "list_snapshots 's.*'",
        "delete_snapshot 's'",
        "clone_snapshot 's', 'ns:t2'",
        "restore_snapshot 's'",
    ];
    for line in good {
        let r = outcome(&mut s, line);
        assert!(
            matches!(r, Err(ShellError::Connection { .. })),
            "{line}: {r:?}"
        );
    }
    for line in ["help", "help 'get'", "whoami", "exit"] {
        outcome(&mut s, line).unwrap();
    }
    assert!(s.exit_requested);
}
