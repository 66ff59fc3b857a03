#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Stateful scanners: create, fetch batches of cells, exhaustion, delete, filters.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::{b64, json_cells, Harness};
use strata_rest::RestOptions;
use strata_runtime::clock::ManualClock;

const JSON: &str = "application/json";
const XML: &str = "text/xml";

async fn open(h: &Harness, content_type: &str, body: &str) -> String {
    let reply = h
        .send("POST", "/t/scanner", content_type, body.to_string())
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let location = reply.header("location").unwrap();
    let path = location
        .strip_prefix("http://localhost:8080")
        .unwrap()
        .to_string();
    assert!(path.starts_with("/t/scanner/"), "{path}");
    path
}

/// Fetches until 204; returns the (row, column) of every cell, and the number of fetches.
async fn drain(h: &Harness, path: &str, accept: &str) -> (Vec<(Vec<u8>, Vec<u8>)>, usize) {
    let mut cells = Vec::new();
    for fetches in 0..1000 {
        let reply = h.get(path, accept).await;
        if reply.status == StatusCode::NO_CONTENT {
            return (cells, fetches);
        }
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        if accept == JSON {
            cells.extend(json_cells(&reply.json()).into_iter().map(|c| (c.0, c.1)));
        } else {
            assert!(
                reply.text().contains("<CellSet><Row key="),
                "{}",
                reply.text()
            );
            cells.push((Vec::new(), Vec::new()));
        }
    }
    panic!("scanner never ended");
}

async fn table_with_rows(h: &Harness) {
    h.create_table("t", &["a", "b"], 3).await;
    for row in ["r1", "r2", "r3", "s1"] {
        h.put_cell("t", row.as_bytes(), "a:x", Some(1), b"1").await;
        h.put_cell("t", row.as_bytes(), "b:y", Some(1), b"2").await;
    }
}

#[tokio::test]
async fn default_batch_is_one_cell_per_fetch() {
    let h = Harness::new();
    table_with_rows(&h).await;
    let path = open(&h, XML, "<Scanner/>").await;
    let (cells, fetches) = drain(&h, &path, JSON).await;
    assert_eq!(cells.len(), 8);
    assert_eq!(fetches, 8);
    // Exhausted stays exhausted.
    assert_eq!(h.get(&path, JSON).await.status, StatusCode::NO_CONTENT);
    assert_eq!(
        h.call("DELETE", &path, &[], Vec::new()).await.status,
        StatusCode::OK
    );
    assert_eq!(h.get(&path, JSON).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        h.call("DELETE", &path, &[], Vec::new()).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn batch_range_columns_and_row_caps() {
    let h = Harness::new();
    table_with_rows(&h).await;
    let body =
        serde_json::json!({"startRow": b64(b"r2"), "endRow": b64(b"s"), "batch": 3}).to_string();
    let path = open(&h, JSON, &body).await;
    // Three cells: r2 whole and r3's first cell; the rest of r3 comes next.
    let first = json_cells(&h.get(&path, JSON).await.json());
    let rows: Vec<&[u8]> = first.iter().map(|c| c.0.as_slice()).collect();
    assert_eq!(rows, vec![&b"r2"[..], b"r2", b"r3"]);
    let second = json_cells(&h.get(&path, JSON).await.json());
    assert_eq!(second.len(), 1);
    assert_eq!(
        (second[0].0.as_slice(), second[0].1.as_slice()),
        (&b"r3"[..], &b"b:y"[..])
    );
    assert_eq!(h.get(&path, JSON).await.status, StatusCode::NO_CONTENT);

    let body = format!(
        r#"<Scanner batch="100"><column>{}</column></Scanner>"#,
        b64(b"b")
    );
    let path = open(&h, XML, &body).await;
    // ?n= caps the rows of one fetch.
    let cells = json_cells(&h.get(&format!("{path}?n=2"), JSON).await.json());
    assert_eq!(cells.len(), 2);
    assert!(cells.iter().all(|c| c.1 == b"b:y"));
    let (rest, _) = drain(&h, &path, XML).await;
    assert_eq!(
        rest.len(),
        1,
        "the remaining two rows come in one XML fetch"
    );
}

#[tokio::test]
async fn hbase_json_filters_and_filter_language() {
    let h = Harness::new();
    table_with_rows(&h).await;
    let prefix = serde_json::json!({"type": "PrefixFilter", "value": b64(b"r")}).to_string();
    let body = serde_json::json!({"batch": 100, "filter": prefix}).to_string();
    let path = open(&h, JSON, &body).await;
    let (cells, _) = drain(&h, &path, JSON).await;
    assert_eq!(cells.len(), 6);
    assert!(cells.iter().all(|c| c.0.starts_with(b"r")));

    let list = serde_json::json!({"type": "FilterList", "op": "MUST_PASS_ALL", "filters": [
        {"type": "RowFilter", "op": "EQUAL", "comparator": {"type": "BinaryComparator", "value": b64(b"r2")}},
        {"type": "QualifierFilter", "op": "EQUAL", "comparator": {"type": "SubstringComparator", "value": "y"}}
    ]})
    .to_string();
    let body = serde_json::json!({"batch": 100, "filter": list}).to_string();
    let (cells, _) = drain(&h, &open(&h, JSON, &body).await, JSON).await;
    assert_eq!(cells, vec![(b"r2".to_vec(), b"b:y".to_vec())]);

    let body =
        r#"<Scanner batch="100"><filter>KeyOnlyFilter() AND PrefixFilter('s')</filter></Scanner>"#;
    let path = open(&h, XML, body).await;
    let reply = h.get(&path, JSON).await;
    let cells = json_cells(&reply.json());
    assert_eq!(cells.len(), 2);
    assert!(cells.iter().all(|c| c.0 == b"s1" && c.3.is_empty()));

    for filter in [
        r#"{"type":"NoSuchFilter"}"#,
        "NotAFilter(",
        r#"{"type":"RowFilter","op":"EQUAL"}"#,
    ] {
        let body = serde_json::json!({"filter": filter}).to_string();
        let reply = h.send("POST", "/t/scanner", JSON, body).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{filter}: {}",
            reply.text()
        );
    }
}

#[tokio::test]
async fn scanner_errors_and_limits() {
    let h = Harness::with_service(RestOptions::default(), |o| {
        o.limits.max_open_scanners = 2;
    });
    table_with_rows(&h).await;
    assert_eq!(
        h.send("PUT", "/nope/scanner", XML, "<Scanner/>")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        h.send("PUT", "/t/scanner", XML, "<Scanner batch=\"-1\"/>")
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        h.send("PUT", "/t/scanner", JSON, "{\"column\":[\"bm9wZQ==\"]}")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        h.send("PUT", "/t/scanner", "text/plain", "").await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(
        h.get("/t/scanner/unknown", JSON).await.status,
        StatusCode::NOT_FOUND
    );
    let first = open(&h, XML, "<Scanner/>").await;
    open(&h, XML, "<Scanner/>").await;
    assert_eq!(
        h.send("PUT", "/t/scanner", XML, "<Scanner/>").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    // A scanner belongs to its table.
    let other = first.replacen("/t/", "/u/", 1);
    assert_eq!(h.get(&other, JSON).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        h.call("DELETE", &first, &[], Vec::new()).await.status,
        StatusCode::OK
    );
    open(&h, XML, "<Scanner/>").await;
}

#[tokio::test]
async fn idle_scanners_expire() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let lease = std::time::Duration::from_secs(60);
    let h = Harness::with_service(RestOptions::default(), |o| {
        o.engine.clock = clock.clone();
        o.scanner_lease = lease;
        o.limits.max_open_scanners = 1;
    });
    table_with_rows(&h).await;
    let path = open(&h, XML, "<Scanner/>").await;
    clock.advance(lease.as_millis() as i64);
    // Opening another reaps the idle one (the limit of one would refuse it otherwise).
    open(&h, XML, "<Scanner/>").await;
    assert_eq!(h.get(&path, JSON).await.status, StatusCode::NOT_FOUND);
    assert_eq!(h.service.scanners().open_scanner_count(), 1);
}

/// Found by the comparison with HBase's REST server: scanners return every stored version
/// unless the Scanner document sets maxVersions.
#[tokio::test]
async fn scanners_return_every_version_by_default() {
    let h = Harness::new();
    h.create_table("t", &["a"], 3).await;
    for ts in [1, 2, 3] {
        h.put_cell("t", b"r", "a:x", Some(ts), b"v").await;
    }
    let path = open(&h, XML, r#"<Scanner batch="10"/>"#).await;
    assert_eq!(json_cells(&h.get(&path, JSON).await.json()).len(), 3);
    let path = open(&h, XML, r#"<Scanner batch="10" maxVersions="2"/>"#).await;
    assert_eq!(json_cells(&h.get(&path, JSON).await.json()).len(), 2);
}

/// Opens a scanner as the client at `ip` (the address the HTTP server records per request).
async fn open_as(h: &Harness, ip: [u8; 4]) -> StatusCode {
    use tower::ServiceExt;
    let address = std::net::SocketAddr::from((ip, 40000));
    let request = axum::http::Request::builder()
        .method("POST")
        .uri("/t/scanner")
        .header("Content-Type", XML)
        .extension(axum::extract::ConnectInfo(address))
        .body(axum::body::Body::from("<Scanner/>"))
        .unwrap();
    let response = h.router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        let text = String::from_utf8_lossy(&body);
        assert!(text.contains("limits.max_scanners_per_client"), "{text}");
    }
    status
}

#[tokio::test]
async fn each_client_address_holds_at_most_its_share_of_scanners() {
    let h = Harness::with_service(RestOptions::default(), |o| {
        o.limits.max_scanners_per_client = 2;
    });
    table_with_rows(&h).await;
    assert_eq!(open_as(&h, [10, 0, 0, 1]).await, StatusCode::CREATED);
    assert_eq!(open_as(&h, [10, 0, 0, 1]).await, StatusCode::CREATED);
    assert_eq!(
        open_as(&h, [10, 0, 0, 1]).await,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(open_as(&h, [10, 0, 0, 2]).await, StatusCode::CREATED);
    // Without a recorded address only the total applies.
    open(&h, XML, "<Scanner/>").await;
    open(&h, XML, "<Scanner/>").await;
}
