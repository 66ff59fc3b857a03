//! The service's limits through the Thrift API, as HBase reports them: a cell over
//! `max_value_bytes` is an IllegalArgument, running out of `max_open_scanners` an IOError,
//! a filter over `filter_max_depth` a TApplicationException; each message names the config
//! key, nothing is written, and the connection keeps serving.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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

async fn start() -> (TestServer, HbaseClient) {
    let server = TestServer::start_with(|options| {
        options.limits.max_value_bytes = 8;
        options.limits.max_open_scanners = 1;
        options.limits.filter_max_depth = 2;
    })
    .await;
    let c = server.client(false, false);
    let family = ColumnDescriptor {
        name: t("f:"),
        ..Default::default()
    };
    c.create_table(t("t"), Some(vec![family])).await.unwrap();
    (server, c)
}

async fn row_count(c: &HbaseClient, row: &str) -> usize {
    match c.get_row(t("t"), t(row), None).await.unwrap() {
        MaybeException::Ok(rows) => rows.len(),
        MaybeException::Exception(e) => panic!("{e:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn value_over_max_value_bytes_is_an_illegal_argument_naming_the_key() {
    let (_server, c) = start().await;
    let r = c
        .mutate_row(t("t"), t("big"), Some(vec![put("f:q", "123456789")]), None)
        .await
        .unwrap();
    match r {
        MaybeException::Exception(HbaseMutateRowException::Ia(e)) => {
            let message = e.message.map(|m| m.to_string()).unwrap_or_default();
            assert!(message.contains("limits.max_value_bytes"), "{message}");
        }
        MaybeException::Exception(_) => panic!("expected IllegalArgument, got another exception"),
        MaybeException::Ok(()) => panic!("an oversized value was written"),
    }
    assert_eq!(row_count(&c, "big").await, 0);
    let ok = c
        .mutate_row(t("t"), t("ok"), Some(vec![put("f:q", "12345678")]), None)
        .await
        .unwrap();
    assert!(matches!(ok, MaybeException::Ok(())));
    assert_eq!(row_count(&c, "ok").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scanners_past_max_open_scanners_are_an_io_error_naming_the_key() {
    let (_server, c) = start().await;
    let MaybeException::Ok(first) = c.scanner_open(t("t"), t(""), None, None).await.unwrap() else {
        panic!("the first scanner opens")
    };
    match c.scanner_open(t("t"), t(""), None, None).await.unwrap() {
        MaybeException::Exception(HbaseScannerOpenException::Io(e)) => {
            let message = e.message.map(|m| m.to_string()).unwrap_or_default();
            assert!(message.contains("limits.max_open_scanners"), "{message}");
        }
        MaybeException::Ok(_) => panic!("a second scanner opened"),
    }
    c.scanner_close(Some(first)).await.unwrap();
    let again = c.scanner_open(t("t"), t(""), None, None).await.unwrap();
    assert!(matches!(again, MaybeException::Ok(_)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filter_over_filter_max_depth_is_refused_naming_the_key() {
    let (_server, c) = start().await;
    let deep = TScan {
        filter_string: t("((( KeyOnlyFilter() )))"),
        ..Default::default()
    };
    let e = c
        .scanner_open_with_scan(t("t"), Some(deep), None)
        .await
        .err()
        .expect("a filter nested 3 deep is refused");
    assert!(e.to_string().contains("limits.filter_max_depth"), "{e}");
    let shallow = TScan {
        filter_string: t("(( KeyOnlyFilter() ))"),
        ..Default::default()
    };
    let ok = c
        .scanner_open_with_scan(t("t"), Some(shallow), None)
        .await
        .unwrap();
    assert!(matches!(ok, MaybeException::Ok(_)));
}
