#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The service's limits through the REST API: a cell value over `max_value_bytes` is 413,
//! a row key over `max_row_key_bytes` 400, a filter over `filter_max_depth` 400, and a
//! scanner past `max_open_scanners` 503; each body names the config key, and the server keeps
//! serving.

mod common;

use axum::http::StatusCode;
use common::{b64, Harness};
use strata_rest::RestOptions;

const JSON: &str = "application/json";

async fn harness() -> Harness {
    let h = Harness::with_service(RestOptions::default(), |options| {
        options.limits.max_value_bytes = 8;
        options.limits.max_row_key_bytes = 16;
        options.limits.max_open_scanners = 1;
        options.limits.filter_max_depth = 2;
    });
    h.create_table("t", &["cf"], 1).await;
    h
}

/// The reply refused the request with `status`, naming the config `key` in its body.
fn assert_refused(reply: &common::Reply, status: StatusCode, key: &str) {
    assert_eq!(reply.status, status, "{}", reply.text());
    assert!(reply.text().contains(key), "{}", reply.text());
}

fn cellset(row: &[u8], value: &[u8]) -> String {
    let cell = serde_json::json!({"column": b64(b"cf:q"), "$": b64(value)});
    serde_json::json!({"Row": [{"key": b64(row), "Cell": [cell]}]}).to_string()
}

#[tokio::test]
async fn value_over_max_value_bytes_is_413_naming_the_key() {
    let h = harness().await;
    let reply = h
        .send("PUT", "/t/fakerow", JSON, cellset(b"big", b"123456789"))
        .await;
    assert_refused(
        &reply,
        StatusCode::PAYLOAD_TOO_LARGE,
        "limits.max_value_bytes",
    );
    assert_eq!(h.get("/t/big", JSON).await.status, StatusCode::NOT_FOUND);
    h.put_cell("t", b"ok", "cf:q", None, b"12345678").await;
    assert_eq!(h.get("/t/ok", JSON).await.status, StatusCode::OK);
}

#[tokio::test]
async fn row_key_over_max_row_key_bytes_is_400_naming_the_key() {
    let h = harness().await;
    let reply = h
        .send("PUT", "/t/fakerow", JSON, cellset(&[b'k'; 17], b"v"))
        .await;
    assert_refused(&reply, StatusCode::BAD_REQUEST, "limits.max_row_key_bytes");
    h.put_cell("t", &[b'k'; 16], "cf:q", None, b"v").await;
}

fn scanner(filter: Option<&str>) -> String {
    let mut model = serde_json::json!({"batch": 10});
    if let Some(f) = filter {
        model["filter"] = f.into();
    }
    model.to_string()
}

#[tokio::test]
async fn scanners_past_max_open_scanners_are_503_naming_the_key() {
    let h = harness().await;
    let first = h.send("PUT", "/t/scanner", JSON, scanner(None)).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text());
    let second = h.send("PUT", "/t/scanner", JSON, scanner(None)).await;
    assert_refused(
        &second,
        StatusCode::SERVICE_UNAVAILABLE,
        "limits.max_open_scanners",
    );
    let location = first.header("location").unwrap();
    let path = location
        .split_once("8080")
        .map_or(location.as_str(), |(_, p)| p);
    let deleted = h.call("DELETE", path, &[], Vec::new()).await;
    assert_eq!(deleted.status, StatusCode::OK, "{}", deleted.text());
    let again = h.send("PUT", "/t/scanner", JSON, scanner(None)).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.text());
}

#[tokio::test]
async fn filter_over_filter_max_depth_is_400_naming_the_key() {
    let h = harness().await;
    let deep = "((( KeyOnlyFilter() )))";
    let reply = h.send("PUT", "/t/scanner", JSON, scanner(Some(deep))).await;
    assert_refused(&reply, StatusCode::BAD_REQUEST, "limits.filter_max_depth");
    let ok = h
        .send(
            "PUT",
            "/t/scanner",
            JSON,
            scanner(Some("(( KeyOnlyFilter() ))")),
        )
        .await;
    assert_eq!(ok.status, StatusCode::CREATED, "{}", ok.text());
}

#[tokio::test]
async fn body_over_rest_max_body_bytes_is_413_naming_the_key() {
    let options = RestOptions {
        max_body_bytes: 1024,
        ..RestOptions::default()
    };
    let h = Harness::with_service(options, |_| {});
    h.create_table("t", &["cf"], 1).await;
    let reply = h
        .send("PUT", "/t/fakerow", JSON, cellset(b"r", &[b'v'; 2048]))
        .await;
    assert_refused(
        &reply,
        StatusCode::PAYLOAD_TOO_LARGE,
        "limits.rest_max_body_bytes",
    );
    h.put_cell("t", b"r", "cf:q", None, b"small").await;
}
