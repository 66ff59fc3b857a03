//! The compact protocol over the wire, buffered and framed. pilota 0.13.1's compact decoder
//! panicked on bool fields in framed messages and lost fields that follow a nested struct;
//! the server now transcodes compact to binary first (src/compact.rs). Binary runs the same
//! calls as the control.

mod common;

use common::*;
use strata_thrift::gen::volo_gen::hbase::*;
use volo_thrift::MaybeException;

const COMBOS: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];

/// The reply of a call that must succeed; a transport error says what broke.
fn ok<T, E>(r: Result<MaybeException<T, E>, volo_thrift::ClientError>, what: &str) -> T {
    match r {
        Ok(MaybeException::Ok(v)) => v,
        Ok(MaybeException::Exception(_)) => panic!("{what}: the server raised an exception"),
        Err(e) => panic!("{what}: {e}"),
    }
}

fn put(column: &str, value: &str) -> Mutation {
    Mutation {
        is_delete: Some(false),
        column: t(column),
        value: t(value),
        write_to_wal: Some(true),
    }
}

fn cd(name: &str) -> ColumnDescriptor {
    ColumnDescriptor {
        name: t(name),
        in_memory: Some(true),
        block_cache_enabled: Some(false),
        ..Default::default()
    }
}

/// createTable's ColumnDescriptor has bool fields: framed+compact used to kill the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn framed_compact_struct_with_bool() {
    let server = TestServer::start().await;
    let c = server.client(true, true);
    let r = c.create_table(t("fc"), Some(vec![cd("cf:")])).await;
    ok(r, "createTable");
    // The connection survived and the descriptor's bools arrived.
    let d = ok(
        c.get_column_descriptors(t("fc")).await,
        "getColumnDescriptors",
    );
    assert_eq!(d[&text("cf:")].in_memory, Some(true));
}

/// mutateRowTs(table, row, mutations, timestamp, attributes): `timestamp` follows a list of
/// structs, and compact writes its id as a delta from `mutations`. It used to be decoded as
/// field 5 and dropped, so the server stamped the cells with its own clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_keeps_the_field_after_a_list_of_structs() {
    let server = TestServer::start().await;
    for (framed, compact) in COMBOS {
        let combo = format!("framed={framed} compact={compact}");
        let c = server.client(framed, compact);
        let table = format!("ts_{framed}_{compact}");
        let r = c.create_table(t(&table), Some(vec![cd("cf:")])).await;
        ok(r, &format!("{combo}: createTable"));
        let mutations = vec![put("cf:a", "1"), put("cf:b", "2")];
        let r = c
            .mutate_row_ts(t(&table), t("r1"), Some(mutations), Some(42), None)
            .await;
        ok(r, &format!("{combo}: mutateRowTs"));
        let r = c.get_row_with_columns(t(&table), t("r1"), None, None).await;
        let rows = ok(r, &format!("{combo}: getRowWithColumns"));
        let cols = rows[0].columns.as_ref().unwrap();
        assert_eq!(cols.len(), 2, "{combo}");
        for cell in cols.values() {
            assert_eq!(cell.timestamp, Some(42), "{combo}");
        }

        // checkAndPut: a Mutation (with bools) as the 5th argument, then attributes.
        let r = c
            .check_and_put(
                t(&table),
                t("r1"),
                t("cf:a"),
                t("1"),
                Some(put("cf:a", "3")),
                None,
            )
            .await;
        assert!(ok(r, &format!("{combo}: checkAndPut")), "{combo}");

        // A TScan with bools and fields on both sides of them.
        let scan = TScan {
            start_row: t("r"),
            stop_row: t("s"),
            columns: Some(vec![text("cf:a")]),
            caching: Some(10),
            sort_columns: Some(true),
            reversed: Some(false),
            cache_blocks: Some(true),
            ..Default::default()
        };
        let r = c.scanner_open_with_scan(t(&table), Some(scan), None).await;
        let id = ok(r, &format!("{combo}: scannerOpenWithScan"));
        let r = c.scanner_get_list(Some(id), Some(10)).await;
        let rows = ok(r, &format!("{combo}: scannerGetList"));
        assert_eq!(rows.len(), 1, "{combo}");
        let sorted = rows[0].sorted_columns.as_ref().unwrap();
        assert_eq!(sorted.len(), 1, "{combo}: only the requested column");
        let cell = sorted[0].cell.as_ref().unwrap();
        assert_eq!(cell.value, by("3"), "{combo}");
    }
}

/// A value far larger than one socket read: the buffered path must gather the whole compact
/// message (its length is only known by walking it) before decoding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_large_values() {
    let server = TestServer::start().await;
    let big = "x".repeat(3 << 20);
    for framed in [false, true] {
        let c = server.client(framed, true);
        let table = format!("big_{framed}");
        ok(
            c.create_table(t(&table), Some(vec![cd("cf:")])).await,
            "createTable",
        );
        let mutations = vec![put("cf:a", &big), put("cf:b", "small")];
        let r = c.mutate_row_ts(t(&table), t("r"), Some(mutations), Some(7), None);
        ok(r.await, "mutateRowTs");
        let r = c.get_row_with_columns(t(&table), t("r"), None, None).await;
        let rows = ok(r, "getRowWithColumns");
        let cols = rows[0].columns.as_ref().unwrap();
        assert_eq!(cols[&text("cf:a")].value, by(&big), "framed={framed}");
        assert_eq!(cols[&text("cf:b")].timestamp, Some(7), "framed={framed}");
    }
}

/// A malformed compact request is answered in compact (volo's own codec answered such errors
/// in binary, which a compact client cannot parse).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_compact_request_gets_a_compact_error() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = TestServer::start().await;
    let mut conn = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let mut msg = vec![0x82, 0x21, 0x01, 13];
    msg.extend_from_slice(b"getTableNames");
    msg.extend_from_slice(&[0x1e, 0x00]); // a field of unknown type 14
    conn.write_all(&msg).await.unwrap();
    let mut first = [0u8; 2];
    let read = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        conn.read_exact(&mut first),
    );
    read.await.unwrap().unwrap();
    // Compact protocol id, then version 1 with message type 3 (exception).
    assert_eq!(first, [0x82, 0x61]);
}
