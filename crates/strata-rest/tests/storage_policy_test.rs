#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A family's STORAGE_POLICY in the REST schema: set by PUT and POST, reported by GET only
//! when set, refused when unknown.

mod common;

use axum::http::StatusCode;
use common::Harness;
use strata_engine::fs::StoragePolicy;
use strata_server::TableName;

const JSON: &str = "application/json";

fn policy(h: &Harness, table: &str) -> Option<StoragePolicy> {
    let name = TableName::parse(table).unwrap();
    h.service.admin().describe_table(&name).unwrap().families[0].storage_policy
}

#[tokio::test]
async fn the_schema_carries_a_family_storage_policy() {
    let h = Harness::new();
    let body = r#"{"name":"t","ColumnSchema":[{"name":"cf","STORAGE_POLICY":"one_ssd"}]}"#;
    let reply = h.send("PUT", "/t/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    assert_eq!(policy(&h, "t"), Some(StoragePolicy::OneSsd));
    let schema = h.get("/t/schema", JSON).await.json();
    assert_eq!(schema["ColumnSchema"][0]["STORAGE_POLICY"], "ONE_SSD");

    let body = r#"{"name":"t","ColumnSchema":[{"name":"cf","STORAGE_POLICY":"COLD"}]}"#;
    assert_eq!(
        h.send("POST", "/t/schema", JSON, body).await.status,
        StatusCode::OK
    );
    assert_eq!(policy(&h, "t"), Some(StoragePolicy::Cold));
    let body = r#"{"name":"t","ColumnSchema":[{"name":"cf","STORAGE_POLICY":""}]}"#;
    h.send("POST", "/t/schema", JSON, body).await;
    assert_eq!(policy(&h, "t"), None);
    let schema = h.get("/t/schema", JSON).await.json();
    assert!(
        schema["ColumnSchema"][0].get("STORAGE_POLICY").is_none(),
        "{schema}"
    );

    let body = r#"{"name":"u","ColumnSchema":[{"name":"cf","STORAGE_POLICY":"FAST"}]}"#;
    let reply = h.send("PUT", "/u/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(
        reply.text().contains("unknown storage policy"),
        "{}",
        reply.text()
    );
}
