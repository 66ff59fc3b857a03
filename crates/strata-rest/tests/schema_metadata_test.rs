#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The REST schema's attributes Strata does not act on (PerformanceEvaluation's
//! REGION_REPLICATION and SPLIT_POLICY, user metadata) kept and listed back as given, and
//! REPLICATION_SCOPE: 0 accepted, any other scope a 400.

mod common;

use axum::http::StatusCode;
use bytes::Bytes;
use common::Harness;
use strata_server::TableName;

const JSON: &str = "application/json";

#[tokio::test]
async fn table_and_family_attributes_round_trip() {
    let h = Harness::new();
    let body = r#"{"name":"t","REGION_REPLICATION":"1","SPLIT_POLICY":"a.B",
        "ColumnSchema":[{"name":"cf","REPLICATION_SCOPE":"0","owner":"ops"},{"name":"g"}]}"#;
    let reply = h.send("PUT", "/t/schema", JSON, body).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let described = h
        .service
        .admin()
        .describe_table(&TableName::parse("t").unwrap())
        .unwrap();
    let table = &described.metadata.attributes;
    assert_eq!(table.get(&b"SPLIT_POLICY"[..]), Some(&Bytes::from("a.B")));
    assert_eq!(table.len(), 2, "{table:?}");
    let family = &described.families[0].metadata.attributes;
    assert_eq!(family.get(&b"owner"[..]), Some(&Bytes::from("ops")));
    assert_eq!(
        family.len(),
        1,
        "REPLICATION_SCOPE is no metadata: {family:?}"
    );
    let schema = h.get("/t/schema", JSON).await.json();
    assert_eq!(schema["REGION_REPLICATION"], "1");
    assert_eq!(schema["SPLIT_POLICY"], "a.B");
    assert_eq!(schema["IS_META"], "false");
    assert_eq!(schema["ColumnSchema"][0]["owner"], "ops");
    assert_eq!(schema["ColumnSchema"][0]["REPLICATION_SCOPE"], "0");
    assert!(schema["ColumnSchema"][1].get("owner").is_none(), "{schema}");
    // POST adds to the table's attributes; PUT replaces them.
    let body = r#"{"name":"t","MAX_FILESIZE":"1024","ColumnSchema":[{"name":"cf"}]}"#;
    h.send("POST", "/t/schema", JSON, body).await;
    let schema = h.get("/t/schema", JSON).await.json();
    assert_eq!(
        (&schema["SPLIT_POLICY"], &schema["MAX_FILESIZE"]),
        (&"a.B".into(), &"1024".into())
    );
    let body = r#"{"name":"t","ColumnSchema":[{"name":"cf"}]}"#;
    h.send("PUT", "/t/schema", JSON, body).await;
    let schema = h.get("/t/schema", JSON).await.json();
    assert!(schema.get("SPLIT_POLICY").is_none(), "{schema}");
}

#[tokio::test]
async fn a_replication_scope_other_than_zero_is_refused() {
    let h = Harness::new();
    for scope in ["1", "global"] {
        let body = format!(
            r#"{{"name":"t","ColumnSchema":[{{"name":"cf","REPLICATION_SCOPE":"{scope}"}}]}}"#
        );
        let reply = h.send("PUT", "/t/schema", JSON, body.as_str()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{scope}");
        assert!(
            reply.text().contains("REPLICATION_SCOPE"),
            "{}",
            reply.text()
        );
    }
    assert!(h.service.admin().list_tables().is_empty());
}
