#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `?check=put|delete|increment|append` row writes.

mod common;

use axum::http::StatusCode;
use common::{b64, json_cells, Harness};

const JSON: &str = "application/json";

/// A one-row CellSet of (column, timestamp, value) cells.
fn body(row: &str, cells: &[(&str, Option<i64>, &[u8])]) -> String {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|(column, ts, value)| {
            let mut cell = serde_json::json!({"column": b64(column.as_bytes()), "$": b64(value)});
            if let Some(ts) = ts {
                cell["timestamp"] = (*ts).into();
            }
            cell
        })
        .collect();
    serde_json::json!({"Row": [{"key": b64(row.as_bytes()), "Cell": cells}]}).to_string()
}

async fn value(h: &Harness, path: &str) -> Option<Vec<u8>> {
    let reply = h.get(path, "application/octet-stream").await;
    (reply.status == StatusCode::OK).then_some(reply.body)
}

#[tokio::test]
async fn check_and_put_applies_only_on_a_match() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    h.put_cell("t", b"r", "cf:q", None, b"old").await;
    let stale = body(
        "r",
        &[
            ("cf:q", None, b"new"),
            ("cf:other", None, b"x"),
            ("cf:q", None, b"nope"),
        ],
    );
    let reply = h.send("PUT", "/t/r?check=put", JSON, stale).await;
    assert_eq!(reply.status, StatusCode::NOT_MODIFIED);
    assert_eq!(value(&h, "/t/r/cf:q").await.unwrap(), b"old");
    let fresh = body(
        "r",
        &[
            ("cf:q", None, b"new"),
            ("cf:other", None, b"x"),
            ("cf:q", None, b"old"),
        ],
    );
    let reply = h.send("POST", "/t/r?check=put", JSON, fresh).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(value(&h, "/t/r/cf:q").await.unwrap(), b"new");
    assert_eq!(value(&h, "/t/r/cf:other").await.unwrap(), b"x");
    // The checked column must be among the puts, and there must be a put.
    let unrelated = body("r", &[("cf:other", None, b"y"), ("cf:q", None, b"new")]);
    assert_eq!(
        h.send("PUT", "/t/r?check=put", JSON, unrelated)
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    let lonely = body("r", &[("cf:q", None, b"new")]);
    assert_eq!(
        h.send("PUT", "/t/r?check=put", JSON, lonely).await.status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn check_and_delete() {
    let h = Harness::new();
    h.create_table("t", &["cf", "g"], 3).await;
    h.put_cell("t", b"r", "cf:q", Some(5), b"v").await;
    h.put_cell("t", b"r", "g:x", Some(5), b"w").await;
    // Alone, the checked cell names the column to delete.
    let reply = h
        .send(
            "PUT",
            "/t/r?check=delete",
            JSON,
            body("r", &[("cf:q", None, b"wrong")]),
        )
        .await;
    assert_eq!(reply.status, StatusCode::NOT_MODIFIED);
    let reply = h
        .send(
            "PUT",
            "/t/r?check=delete",
            JSON,
            body("r", &[("cf:q", None, b"v")]),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(value(&h, "/t/r/cf:q").await, None);
    // Other cells name what to delete: here a whole family.
    // After the delete marker (written at the server's time, it hides older versions).
    h.put_cell("t", b"r", "cf:q", Some(4_000_000_000_000), b"v")
        .await;
    let reply = h
        .send(
            "PUT",
            "/t/r?check=delete",
            JSON,
            body("r", &[("g", None, b""), ("cf:q", None, b"v")]),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(value(&h, "/t/r/g:x").await, None);
    assert_eq!(value(&h, "/t/r/cf:q").await.unwrap(), b"v");
}

#[tokio::test]
async fn increments_and_appends() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    let reply = h
        .send(
            "PUT",
            "/t/r?check=increment",
            JSON,
            body("r", &[("cf:n", None, b"5")]),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let reply = h
        .call(
            "PUT",
            "/t/r?check=increment&rr=true",
            &[("Content-Type", JSON), ("Accept", JSON)],
            body("r", &[("cf:n", None, b"-7")]),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let cells = json_cells(&reply.json());
    assert_eq!(cells[0].3, (-2i64).to_be_bytes().to_vec());
    assert_eq!(
        value(&h, "/t/r/cf:n").await.unwrap(),
        (-2i64).to_be_bytes().to_vec()
    );
    let bad = body("r", &[("cf:n", None, b"many")]);
    assert_eq!(
        h.send("PUT", "/t/r?check=increment", JSON, bad)
            .await
            .status,
        StatusCode::BAD_REQUEST
    );

    h.put_cell("t", b"r", "cf:s", None, b"ab").await;
    let reply = h
        .call(
            "POST",
            "/t/r?check=append&rr=true",
            &[("Content-Type", JSON), ("Accept", JSON)],
            body("r", &[("cf:s", None, b"cd"), ("cf:new", None, b"x")]),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let cells = json_cells(&reply.json());
    let values: Vec<(Vec<u8>, Vec<u8>)> = cells.into_iter().map(|c| (c.1, c.3)).collect();
    assert_eq!(
        values,
        vec![
            (b"cf:s".to_vec(), b"abcd".to_vec()),
            (b"cf:new".to_vec(), b"x".to_vec())
        ]
    );
    assert_eq!(value(&h, "/t/r/cf:s").await.unwrap(), b"abcd");
}
