#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A table's DURABILITY in the REST schema: set by PUT and POST, reported by GET, refused
//! when unknown, and applied to the table's writes.

mod common;

use axum::http::StatusCode;
use common::Harness;
use strata_server::{TableName, WriteDurability};

const JSON: &str = "application/json";
const XML: &str = "text/xml";

fn durability(h: &Harness, table: &str) -> WriteDurability {
    let name = TableName::parse(table).unwrap();
    h.service.admin().describe_table(&name).unwrap().durability
}

#[tokio::test]
async fn put_post_and_get_carry_the_durability() {
    let h = Harness::new();
    let body = r#"{"name":"t","DURABILITY":"ASYNC_WAL","ColumnSchema":[{"name":"cf"}]}"#;
    let reply = h.send("PUT", "/t/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    assert_eq!(durability(&h, "t"), WriteDurability::AsyncWal);
    let schema = h.get("/t/schema", JSON).await.json();
    assert_eq!(schema["DURABILITY"], "ASYNC_WAL");
    assert_eq!(schema["IS_META"], "false");
    let xml = h.get("/t/schema", XML).await.text();
    assert!(xml.contains(" DURABILITY=\"ASYNC_WAL\""), "{xml}");

    // POST changes it when given and keeps it when not.
    let xml =
        r#"<TableSchema name="t" DURABILITY="SKIP_WAL"><ColumnSchema name="cf"/></TableSchema>"#;
    assert_eq!(
        h.send("POST", "/t/schema", XML, xml).await.status,
        StatusCode::OK
    );
    assert_eq!(durability(&h, "t"), WriteDurability::SkipWal);
    let body = r#"{"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":"2"}]}"#;
    h.send("POST", "/t/schema", JSON, body).await;
    assert_eq!(durability(&h, "t"), WriteDurability::SkipWal);

    // PUT replaces the whole schema: no DURABILITY is the default again, which GET omits.
    let reply = h.send("PUT", "/t/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    assert_eq!(durability(&h, "t"), WriteDurability::UseDefault);
    let schema = h.get("/t/schema", JSON).await.json();
    assert!(schema.get("DURABILITY").is_none(), "{schema}");
}

#[tokio::test]
async fn unknown_durabilities_are_a_bad_request() {
    let h = Harness::new();
    let body = r#"{"name":"t","DURABILITY":"SOMETIMES","ColumnSchema":[{"name":"cf"}]}"#;
    let reply = h.send("PUT", "/t/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(reply.text().contains("SOMETIMES"), "{}", reply.text());
    assert_eq!(h.get("/t/schema", JSON).await.status, StatusCode::NOT_FOUND);
    h.create_table("t", &["cf"], 1).await;
    let body = r#"{"name":"t","DURABILITY":"fast","ColumnSchema":[{"name":"cf","VERSIONS":"3"}]}"#;
    let reply = h.send("POST", "/t/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    // Nothing of the refused schema was applied.
    let schema = h.get("/t/schema", JSON).await.json();
    assert_eq!(schema["ColumnSchema"][0]["VERSIONS"], "1");
}

#[tokio::test]
async fn a_skip_wal_tables_rest_writes_are_not_logged() {
    let h = Harness::new();
    let body = r#"{"name":"t","DURABILITY":"SKIP_WAL","ColumnSchema":[{"name":"cf"}]}"#;
    h.send("PUT", "/t/schema", JSON, body).await;
    h.create_table("logged", &["cf"], 1).await;
    let appends = || h.service.engine().wal_stats().appends;
    let before = appends();
    h.put_cell("t", b"r", "cf:q", None, b"v").await;
    assert_eq!(appends(), before);
    h.put_cell("logged", b"r", "cf:q", None, b"v").await;
    assert_eq!(appends(), before + 1);
}
