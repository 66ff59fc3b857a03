#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Reading and writing cells: CellSets in JSON and XML, raw values, versions, timestamps,
//! deletes, multiget and globbed scans.

mod common;

use axum::http::StatusCode;
use common::{b64, encode, json_cells, unb64, Harness};

const JSON: &str = "application/json";
const XML: &str = "text/xml";
const BINARY: &str = "application/octet-stream";

#[tokio::test]
async fn json_cellset_round_trip_with_binary_keys() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    let row: &[u8] = b"r/1,\xff\x00+*";
    h.put_cell("t", row, "cf:q\u{e9}", Some(5), b"\x00\x01value")
        .await;
    let reply = h.get(&format!("/t/{}", encode(row)), JSON).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.header("content-type").as_deref(), Some(JSON));
    assert_eq!(
        json_cells(&reply.json()),
        vec![(
            row.to_vec(),
            "cf:q\u{e9}".as_bytes().to_vec(),
            5,
            b"\x00\x01value".to_vec()
        )]
    );
}

#[tokio::test]
async fn xml_cellset_put_and_get() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    let body = format!(
        r#"<?xml version="1.0"?><CellSet><Row key="{}"><Cell column="{}" timestamp="7">{}</Cell><Cell column="{}">{}</Cell></Row></CellSet>"#,
        b64(b"row"),
        b64(b"cf:a"),
        b64(b"<&>"),
        b64(b"cf:b"),
        b64(b"two")
    );
    let reply = h.send("POST", "/t/row", XML, body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    // No Accept header: XML, as HBase answers by default.
    let reply = h.call("GET", "/t/row", &[], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type").as_deref(), Some(XML));
    let text = reply.text();
    assert!(text.starts_with("<?xml"), "{text}");
    let expected = format!(
        r#"<CellSet><Row key="{}"><Cell column="{}" timestamp="7">{}</Cell><Cell column="{}" timestamp=""#,
        b64(b"row"),
        b64(b"cf:a"),
        b64(b"<&>"),
        b64(b"cf:b")
    );
    assert!(text.contains(&expected), "{text}");
}

#[tokio::test]
async fn raw_values_with_x_timestamp() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 3).await;
    let reply = h
        .call(
            "PUT",
            "/t/r%2Fx/cf:q",
            &[("Content-Type", BINARY), ("X-Timestamp", "100")],
            b"\xff\xferaw".to_vec(),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let reply = h
        .call(
            "PUT",
            "/t/r%2Fx/cf:q",
            &[("Content-Type", BINARY), ("X-Timestamp", "200")],
            b"newer".to_vec(),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let reply = h.get("/t/r%2Fx/cf:q", BINARY).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body, b"newer");
    assert_eq!(reply.header("x-timestamp").as_deref(), Some("200"));
    assert_eq!(reply.header("content-type").as_deref(), Some(BINARY));
    // A path timestamp reads the versions before it, as HBase.
    let reply = h.get("/t/r%2Fx/cf:q/200", BINARY).await;
    assert_eq!(reply.body, b"\xff\xferaw");
    assert_eq!(reply.header("x-timestamp").as_deref(), Some("100"));
    // A raw GET needs exactly one column.
    assert_eq!(
        h.get("/t/r%2Fx", BINARY).await.status,
        StatusCode::BAD_REQUEST
    );
    // A raw PUT needs a column.
    assert_eq!(
        h.send("PUT", "/t/r", BINARY, b"v".to_vec()).await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        h.send("PUT", "/t/r/cf", BINARY, b"v".to_vec()).await.status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn versions_and_time_ranges() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 5).await;
    for ts in [10, 20, 30] {
        h.put_cell("t", b"r", "cf:a", Some(ts), format!("v{ts}").as_bytes())
            .await;
    }
    let stamps = |reply: &common::Reply| -> Vec<i64> {
        json_cells(&reply.json()).into_iter().map(|c| c.2).collect()
    };
    assert_eq!(stamps(&h.get("/t/r", JSON).await), vec![30]);
    assert_eq!(stamps(&h.get("/t/r?v=2", JSON).await), vec![30, 20]);
    assert_eq!(
        stamps(&h.get("/t/r/cf:a?v=5", JSON).await),
        vec![30, 20, 10]
    );
    // `/<ts>` reads [0, ts), as HBase's REST server does.
    assert_eq!(stamps(&h.get("/t/r/cf:a/20", JSON).await), vec![10]);
    assert_eq!(stamps(&h.get("/t/r/cf:a/21", JSON).await), vec![20]);
    assert_eq!(
        stamps(&h.get("/t/r/cf:a/10,30?v=5", JSON).await),
        vec![20, 10]
    );
    assert_eq!(
        h.get("/t/r/cf:a/10", JSON).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        h.get("/t/r?v=0", JSON).await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        h.get("/t/r?v=x", JSON).await.status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn deletes_of_rows_families_columns_and_timestamps() {
    let h = Harness::new();
    h.create_table("t", &["a", "b"], 5).await;
    for (column, ts) in [("a:x", 10), ("a:x", 20), ("a:y", 10), ("b:z", 10)] {
        h.put_cell("t", b"r", column, Some(ts), b"v").await;
    }
    let columns = |reply: &common::Reply| -> Vec<(String, i64)> {
        json_cells(&reply.json())
            .into_iter()
            .map(|c| (String::from_utf8(c.1).unwrap(), c.2))
            .collect()
    };
    // A column at or below a timestamp.
    assert_eq!(
        h.call("DELETE", "/t/r/a:x/10", &[], Vec::new())
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        columns(&h.get("/t/r?v=5", JSON).await),
        vec![("a:x".into(), 20), ("a:y".into(), 10), ("b:z".into(), 10)]
    );
    // A whole family.
    assert_eq!(
        h.call("DELETE", "/t/r/a", &[], Vec::new()).await.status,
        StatusCode::OK
    );
    assert_eq!(
        columns(&h.get("/t/r?v=5", JSON).await),
        vec![("b:z".into(), 10)]
    );
    // The whole row.
    assert_eq!(
        h.call("DELETE", "/t/r", &[], Vec::new()).await.status,
        StatusCode::OK
    );
    assert_eq!(h.get("/t/r", JSON).await.status, StatusCode::NOT_FOUND);
    // Unknown family and table: 404.
    assert_eq!(
        h.call("DELETE", "/t/r/nope:x", &[], Vec::new())
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        h.call("DELETE", "/missing/r", &[], Vec::new()).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn multiget_returns_the_rows_found() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 3).await;
    for row in [&b"a"[..], b"b/1", b"c"] {
        h.put_cell("t", row, "cf:q", Some(1), row).await;
        h.put_cell("t", row, "cf:q", Some(2), b"new").await;
        h.put_cell("t", row, "cf:other", Some(1), b"o").await;
    }
    let reply = h.get("/t/multiget?row=a&row=b%252F1&row=zz", JSON).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let rows: Vec<Vec<u8>> = reply.json()["Row"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| unb64(r["key"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, vec![b"a".to_vec(), b"b/1".to_vec()]);
    let reply = h.get("/t/multiget/cf:q?row=c&v=2", JSON).await;
    let cells = json_cells(&reply.json());
    assert_eq!(cells.iter().map(|c| c.2).collect::<Vec<_>>(), vec![2, 1]);
    assert!(cells.iter().all(|c| c.1 == b"cf:q"));
    assert_eq!(
        h.get("/t/multiget?row=zz", JSON).await.status,
        StatusCode::NOT_FOUND
    );
    let reply = h.get("/t/multiget?row=a", XML).await;
    assert!(reply.text().contains("<CellSet><Row"), "{}", reply.text());
}

#[tokio::test]
async fn globs_and_row_ranges() {
    let h = Harness::new();
    h.create_table("t", &["cf", "dd"], 1).await;
    for row in ["ab", "abc", "abd", "ac", "b"] {
        h.put_cell("t", row.as_bytes(), "cf:q", Some(1), b"v").await;
        h.put_cell("t", row.as_bytes(), "dd:q", Some(1), b"w").await;
    }
    h.put_cell("t", b"ab\xff\xff", "cf:q", Some(1), b"v").await;
    let keys = |reply: &common::Reply| -> Vec<Vec<u8>> {
        reply.json()["Row"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| unb64(r["key"].as_str().unwrap()))
            .collect()
    };
    let reply = h.get("/t/ab*", JSON).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(
        keys(&reply),
        vec![
            b"ab".to_vec(),
            b"abc".to_vec(),
            b"abd".to_vec(),
            b"ab\xff\xff".to_vec()
        ]
    );
    assert_eq!(keys(&h.get("/t/ab*?limit=2", JSON).await).len(), 2);
    let reply = h.get("/t/ab*?column=dd:q", JSON).await;
    assert!(json_cells(&reply.json()).iter().all(|c| c.1 == b"dd:q"));
    // Nothing matches: an empty CellSet, not a 404.
    let reply = h.get("/t/zz*", JSON).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(keys(&reply).is_empty());
    // A glob with columns goes through the row resource.
    let reply = h.get("/t/ab*/dd", JSON).await;
    assert_eq!(keys(&reply).len(), 3);
    assert_eq!(h.get("/t/zz*/dd", JSON).await.status, StatusCode::NOT_FOUND);
    // A row range [start, end).
    assert_eq!(
        keys(&h.get("/t/abc,b", JSON).await),
        vec![
            b"abc".to_vec(),
            b"abd".to_vec(),
            b"ab\xff\xff".to_vec(),
            b"ac".to_vec()
        ]
    );
}

#[tokio::test]
async fn put_errors() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    let cellset = |column: &str| {
        serde_json::json!({"Row":[{"key": b64(b"r"), "Cell":[{"column": b64(column.as_bytes()), "$": b64(b"v")}]}]})
            .to_string()
    };
    // Unknown family: 404, as HBase's NoSuchColumnFamilyException.
    assert_eq!(
        h.send("PUT", "/t/r", JSON, cellset("nope:q")).await.status,
        StatusCode::NOT_FOUND
    );
    // A column without a qualifier separator.
    assert_eq!(
        h.send("PUT", "/t/r", JSON, cellset("cf")).await.status,
        StatusCode::BAD_REQUEST
    );
    // Broken JSON, XML and base64.
    assert_eq!(
        h.send("PUT", "/t/r", JSON, "{").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        h.send("PUT", "/t/r", XML, "<CellSet><Row>").await.status,
        StatusCode::BAD_REQUEST
    );
    let bad64 = r#"{"Row":[{"key":"!!","Cell":[{"column":"Y2Y6cQ==","$":"dg=="}]}]}"#;
    assert_eq!(
        h.send("PUT", "/t/r", JSON, bad64).await.status,
        StatusCode::BAD_REQUEST
    );
    // Unsupported and missing content types.
    assert_eq!(
        h.send("PUT", "/t/r", "application/x-protobuf", "x")
            .await
            .status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(
        h.send("PUT", "/t/r", "text/plain", "x").await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(
        h.call("PUT", "/t/r", &[], "x").await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    // Missing table.
    assert_eq!(
        h.send("PUT", "/nope/r", JSON, cellset("cf:q")).await.status,
        StatusCode::NOT_FOUND
    );
    // An unknown check: a clear 400.
    let reply = h
        .send("PUT", "/t/r?check=swap", JSON, cellset("cf:q"))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(
        reply.text().starts_with("Bad request\r\n"),
        "{}",
        reply.text()
    );
}

/// Found by the comparison with HBase's REST server: a raw PUT ignores a timestamp in the
/// path (only `X-Timestamp` sets one).
#[tokio::test]
async fn raw_put_ignores_the_path_timestamp() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    let reply = h.send("PUT", "/t/r/cf:q/100", BINARY, b"v".to_vec()).await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = h.get("/t/r/cf:q", BINARY).await;
    let ts: i64 = reply.header("x-timestamp").unwrap().parse().unwrap();
    assert!(ts > 1_000_000_000_000, "server time expected, got {ts}");
}
