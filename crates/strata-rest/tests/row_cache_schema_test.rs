#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A family's ROW_CACHE in the REST schema: set by PUT and POST, reported by GET only when
//! on, refused when not a boolean.

mod common;

use axum::http::StatusCode;
use common::Harness;
use strata_server::TableName;

const JSON: &str = "application/json";

#[tokio::test]
async fn the_schema_carries_a_family_row_cache_only_when_on() {
    let h = Harness::new();
    let row_cache = |h: &Harness| {
        let name = TableName::parse("t").unwrap();
        h.service.admin().describe_table(&name).unwrap().families[0].row_cache
    };
    let body = r#"{"name":"t","ColumnSchema":[{"name":"cf","ROW_CACHE":"TRUE"}]}"#;
    let reply = h.send("PUT", "/t/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    assert!(row_cache(&h));
    let schema = h.get("/t/schema", JSON).await.json();
    assert_eq!(schema["ColumnSchema"][0]["ROW_CACHE"], "true");
    let body = r#"{"name":"t","ColumnSchema":[{"name":"cf","ROW_CACHE":"false"}]}"#;
    h.send("POST", "/t/schema", JSON, body).await;
    assert!(!row_cache(&h));
    let schema = h.get("/t/schema", JSON).await.json();
    assert!(
        schema["ColumnSchema"][0].get("ROW_CACHE").is_none(),
        "{schema}"
    );
    let body = r#"{"name":"u","ColumnSchema":[{"name":"cf","ROW_CACHE":"maybe"}]}"#;
    let reply = h.send("PUT", "/u/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
}
