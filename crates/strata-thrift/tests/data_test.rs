//! Reads, writes and scanners over Thrift (buffered binary: happybase's default).

mod common;

use common::*;
use strata_thrift::gen::volo_gen::hbase::*;
use volo_thrift::MaybeException;

fn put(column: &str, value: &str) -> Mutation {
    Mutation {
        is_delete: Some(false),
        column: t(column),
        value: t(value),
        write_to_wal: Some(true),
    }
}

fn del(column: &str) -> Mutation {
    Mutation {
        is_delete: Some(true),
        column: t(column),
        value: None,
        write_to_wal: Some(true),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_read_scan_delete() {
    let server = TestServer::start().await;
    let c = server.client(false, false);
    c.create_table(
        t("d"),
        Some(vec![
            ColumnDescriptor {
                name: t("a:"),
                ..Default::default()
            },
            ColumnDescriptor {
                name: t("b:"),
                ..Default::default()
            },
        ]),
    )
    .await
    .unwrap();
    for (row, v) in [("r1", "1"), ("r2", "2"), ("s1", "3")] {
        let r = c
            .mutate_row_ts(
                t("d"),
                t(row),
                Some(vec![put("a:x", v), put("b:", v)]),
                Some(100),
                None,
            )
            .await
            .unwrap();
        assert!(matches!(r, MaybeException::Ok(())));
    }
    // getRow without columns (happybase leaves them out) returns every column.
    let MaybeException::Ok(rows) = c
        .get_row_with_columns(t("d"), t("r1"), None, None)
        .await
        .unwrap()
    else {
        panic!()
    };
    let cols = rows[0].columns.as_ref().unwrap();
    assert_eq!(cols.len(), 2);
    assert_eq!(cols[&text("a:x")].timestamp, Some(100));
    // Timestamped reads are [0, T): T itself is excluded.
    let MaybeException::Ok(rows) = c
        .get_row_ts(t("d"), t("r1"), Some(100), None)
        .await
        .unwrap()
    else {
        panic!()
    };
    assert!(rows.is_empty());
    let MaybeException::Ok(cells) = c.get(t("d"), t("r1"), t("b:"), None).await.unwrap() else {
        panic!()
    };
    assert_eq!(cells.len(), 1);
    // Missing rows are left out of getRows.
    let MaybeException::Ok(rows) = c
        .get_rows(t("d"), Some(vec![text("r1"), text("zz"), text("r2")]), None)
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(rows.len(), 2);

    // Scanners: range, prefix, sorted columns, batching.
    let MaybeException::Ok(id) = c
        .scanner_open_with_stop(t("d"), t("r"), t("s"), None, None)
        .await
        .unwrap()
    else {
        panic!()
    };
    let MaybeException::Ok(rows) = c
        .scanner_get_list(Some(id.clone()), Some(10))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(rows.len(), 2);
    c.scanner_close(Some(id.clone())).await.unwrap();
    assert!(matches!(
        c.scanner_get(Some(id)).await.unwrap(),
        MaybeException::Exception(HbaseScannerGetException::Ia(_))
    ));
    let MaybeException::Ok(id) = c
        .scanner_open_with_prefix(t("d"), t("s"), None, None)
        .await
        .unwrap()
    else {
        panic!()
    };
    let MaybeException::Ok(rows) = c
        .scanner_get_list(Some(id.clone()), Some(10))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(rows.len(), 1);
    let scan = TScan {
        sort_columns: Some(true),
        batch_size: Some(1),
        ..Default::default()
    };
    let MaybeException::Ok(id) = c
        .scanner_open_with_scan(t("d"), Some(scan), None)
        .await
        .unwrap()
    else {
        panic!()
    };
    let MaybeException::Ok(rows) = c
        .scanner_get_list(Some(id.clone()), Some(100))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(rows.len(), 6, "3 rows x 2 cells, one cell per result");
    assert!(rows[0].sorted_columns.is_some() && rows[0].columns.is_none());
    let filtered = TScan {
        filter_string: t("PrefixFilter('r') AND KeyOnlyFilter()"),
        ..Default::default()
    };
    let MaybeException::Ok(fid) = c
        .scanner_open_with_scan(t("d"), Some(filtered), None)
        .await
        .unwrap()
    else {
        panic!("a valid filter string opens a scanner")
    };
    let MaybeException::Ok(rows) = c.scanner_get_list(Some(fid), Some(100)).await.unwrap() else {
        panic!()
    };
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r.row.as_ref().is_some_and(|row| row.0.starts_with(b"r"))));
    let malformed = TScan {
        filter_string: t("PrefixFilter('r'"),
        ..Default::default()
    };
    assert!(c
        .scanner_open_with_scan(t("d"), Some(malformed), None)
        .await
        .is_err());

    // Batch: puts apply before deletes, whatever their order.
    let batch = vec![BatchMutation {
        row: t("r1"),
        mutations: Some(vec![del("a:x"), put("a:y", "new")]),
    }];
    c.mutate_rows(t("d"), Some(batch), None).await.unwrap();
    let MaybeException::Ok(rows) = c.get_row(t("d"), t("r1"), None).await.unwrap() else {
        panic!()
    };
    let cols = rows[0].columns.as_ref().unwrap();
    assert!(!cols.contains_key(&text("a:x")) && cols.contains_key(&text("a:y")));
    // A put to a bare family is a TApplicationException (as in HBase), and the connection
    // keeps working.
    assert!(c
        .mutate_row(t("d"), t("r1"), Some(vec![put("a", "v")]), None)
        .await
        .is_err());
    // Whole-family delete, then whole-row delete.
    c.delete_all(t("d"), t("r2"), t("a"), None).await.unwrap();
    let MaybeException::Ok(rows) = c.get_row(t("d"), t("r2"), None).await.unwrap() else {
        panic!()
    };
    assert_eq!(rows[0].columns.as_ref().unwrap().len(), 1);
    c.delete_all_row(t("d"), t("r2"), None).await.unwrap();
    let MaybeException::Ok(rows) = c.get_row(t("d"), t("r2"), None).await.unwrap() else {
        panic!()
    };
    assert!(rows.is_empty());

    // Counters.
    let MaybeException::Ok(v) = c
        .atomic_increment(t("d"), t("c"), t("a:n"), Some(5))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(v, 5);
    let MaybeException::Ok(v) = c
        .atomic_increment(t("d"), t("c"), t("a:n"), Some(-2))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(v, 3);
    // Missing family: IOError.
    assert!(matches!(
        c.get(t("d"), t("r1"), t("nope:q"), None).await.unwrap(),
        MaybeException::Exception(HbaseGetException::Io(_))
    ));
}
