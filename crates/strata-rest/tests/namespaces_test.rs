#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `/namespaces...` and `/<table>/exists`.

mod common;

use axum::http::StatusCode;
use common::Harness;

const JSON: &str = "application/json";
const XML: &str = "text/xml";

#[tokio::test]
async fn namespace_lifecycle() {
    let h = Harness::new();
    assert_eq!(
        h.get("/namespaces", JSON).await.json(),
        serde_json::json!({"Namespace": ["default", "hbase"]})
    );
    let reply = h.call("POST", "/namespaces/ns1", &[], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    assert_eq!(
        reply.header("location").as_deref(),
        Some("http://localhost:8080/namespaces/ns1")
    );
    // Creating twice, or altering a missing one, is forbidden, as in HBase.
    assert_eq!(
        h.call("POST", "/namespaces/ns1", &[], Vec::new())
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        h.call("PUT", "/namespaces/ns2", &[], Vec::new())
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        h.call("PUT", "/namespaces/ns1", &[], Vec::new())
            .await
            .status,
        StatusCode::OK
    );
    let text = h.get("/namespaces", XML).await.text();
    assert!(text.ends_with("<Namespaces><Namespace>default</Namespace><Namespace>hbase</Namespace><Namespace>ns1</Namespace></Namespaces>"), "{text}");
    assert_eq!(
        h.call("GET", "/namespaces", &[], Vec::new()).await.text(),
        "default\nhbase\nns1\n"
    );
    assert_eq!(
        h.get("/namespaces/ns1", JSON).await.json(),
        serde_json::json!({"properties": null})
    );
    assert!(h
        .get("/namespaces/ns1", XML)
        .await
        .text()
        .ends_with("<NamespaceProperties/>"));
    assert_eq!(
        h.get("/namespaces/nope", JSON).await.status,
        StatusCode::NOT_FOUND
    );

    h.create_table("ns1:t", &["cf"], 1).await;
    assert_eq!(
        h.get("/namespaces/ns1/tables", JSON).await.json(),
        serde_json::json!({"table": [{"name": "t"}]})
    );
    assert!(h
        .get("/namespaces/default/tables", XML)
        .await
        .text()
        .ends_with("<TableList/>"));
    // A namespace holding tables cannot be dropped (HBase: 503).
    assert_eq!(
        h.call("DELETE", "/namespaces/ns1", &[], Vec::new())
            .await
            .status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(
        h.call("DELETE", "/ns1:t/schema", &[], Vec::new())
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        h.call("DELETE", "/namespaces/ns1", &[], Vec::new())
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        h.call("DELETE", "/namespaces/ns1", &[], Vec::new())
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        h.call("POST", "/namespaces/bad%20name", &[], Vec::new())
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn table_exists() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    let reply = h.call("GET", "/t/exists", &[], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.body.is_empty());
    assert_eq!(
        h.call("GET", "/nope/exists", &[], Vec::new()).await.status,
        StatusCode::NOT_FOUND
    );
}
