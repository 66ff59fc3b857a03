#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Cluster documents, the table list, schemas, regions, content negotiation and limits.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

mod common;

use axum::http::StatusCode;
use common::{b64, Harness};
use strata_rest::RestOptions;

const JSON: &str = "application/json";
const XML: &str = "text/xml";

#[tokio::test]
async fn version_documents_in_every_representation() {
    let h = Harness::new();
    let reply = h.get("/version", JSON).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json()["REST"], "0.0.3");
    let reply = h.get("/version/rest", XML).await;
    assert!(
        reply.text().contains(" REST=\"0.0.3\" "),
        "{}",
        reply.text()
    );
    let reply = h.call("GET", "/version", &[], Vec::new()).await;
    assert_eq!(reply.header("content-type").as_deref(), Some("text/plain"));
    assert!(reply.text().starts_with("rest 0.0.3 ["), "{}", reply.text());
    assert_eq!(
        h.get("/version/cluster", JSON).await.json()["Version"],
        "2.6.1"
    );
    let reply = h.get("/version/cluster", "application/xml").await;
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/xml")
    );
    assert!(reply.text().contains("<ClusterVersion Version=\"2.6.1\"/>"));
}

#[tokio::test]
async fn table_list_and_cluster_status() {
    let h = Harness::new();
    h.create_table("t1", &["cf"], 1).await;
    h.service.admin().create_namespace("ns").unwrap();
    h.create_table("ns:t2", &["cf"], 1).await;
    let reply = h.get("/", JSON).await;
    assert_eq!(
        reply.json(),
        serde_json::json!({"table": [{"name": "t1"}, {"name": "ns:t2"}]})
    );
    let reply = h.get("/", XML).await;
    assert!(reply
        .text()
        .contains("<TableList><table name=\"t1\"/><table name=\"ns:t2\"/></TableList>"));
    assert_eq!(
        h.call("GET", "/", &[], Vec::new()).await.text(),
        "t1\nns:t2\n"
    );
    let status = h.get("/status/cluster", JSON).await.json();
    assert_eq!(status["regions"], 2);
    assert_eq!(
        status["LiveNodes"][0]["Region"].as_array().unwrap().len(),
        2
    );
    assert!(h
        .get("/status/cluster", XML)
        .await
        .text()
        .contains("<ClusterStatus averageLoad=\"2.0\" regions=\"2\""));
}

#[tokio::test]
async fn schema_create_describe_alter_and_drop() {
    let h = Harness::new();
    let xml = r#"<TableSchema name="t"><ColumnSchema name="a" VERSIONS="4" TTL="86400" COMPRESSION="GZ" BLOOMFILTER="ROWCOL"/><ColumnSchema name="b"/></TableSchema>"#;
    let reply = h.send("PUT", "/t/schema", XML, xml).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    assert_eq!(
        reply.header("location").as_deref(),
        Some("http://localhost:8080/t/schema")
    );
    let schema = h.get("/t/schema", JSON).await.json();
    assert_eq!(schema["name"], "t");
    assert_eq!(schema["IS_META"], "false");
    let a = &schema["ColumnSchema"][0];
    assert_eq!(
        (
            a["name"].as_str(),
            a["VERSIONS"].as_str(),
            a["TTL"].as_str()
        ),
        (Some("a"), Some("4"), Some("86400"))
    );
    assert_eq!(
        (a["COMPRESSION"].as_str(), a["BLOOMFILTER"].as_str()),
        (Some("GZ"), Some("ROWCOL"))
    );
    assert_eq!(schema["ColumnSchema"][1]["VERSIONS"], "1");
    let text = h.get("/t/schema", XML).await.text();
    assert!(
        text.contains("<TableSchema name=\"t\" IS_META=\"false\"><ColumnSchema name=\"a\""),
        "{text}"
    );
    assert!(h
        .call("GET", "/t/schema", &[], Vec::new())
        .await
        .text()
        .starts_with("{ NAME=> 't'"));

    // POST updates: modifies a, adds c, keeps b.
    let body = serde_json::json!({"name": "t", "ColumnSchema": [{"name": "a", "VERSIONS": 2}, {"name": "c"}]});
    let reply = h.send("POST", "/t/schema", JSON, body.to_string()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let families = |schema: &serde_json::Value| -> Vec<(String, String)> {
        schema["ColumnSchema"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_string(),
                    c["VERSIONS"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(
        families(&h.get("/t/schema", JSON).await.json()),
        vec![
            ("a".into(), "2".into()),
            ("b".into(), "1".into()),
            ("c".into(), "1".into())
        ]
    );
    // The table is usable (enabled) after the change.
    h.put_cell("t", b"r", "c:q", Some(1), b"v").await;

    // PUT replaces: only d remains.
    let body = serde_json::json!({"name": "t", "ColumnSchema": [{"name": "d"}]});
    let reply = h.send("PUT", "/t/schema", JSON, body.to_string()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    assert_eq!(
        families(&h.get("/t/schema", JSON).await.json()),
        vec![("d".into(), "1".into())]
    );

    assert_eq!(
        h.call("DELETE", "/t/schema", &[], Vec::new()).await.status,
        StatusCode::OK
    );
    assert_eq!(h.get("/t/schema", JSON).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        h.call("DELETE", "/t/schema", &[], Vec::new()).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn schema_errors() {
    let h = Harness::new();
    let bad_value = r#"{"name":"t","ColumnSchema":[{"name":"a","VERSIONS":"many"}]}"#;
    assert_eq!(
        h.send("PUT", "/t/schema", JSON, bad_value).await.status,
        StatusCode::BAD_REQUEST
    );
    let no_family = r#"{"name":"t","ColumnSchema":[]}"#;
    assert_eq!(
        h.send("PUT", "/t/schema", JSON, no_family).await.status,
        StatusCode::BAD_REQUEST
    );
    let bad_name = r#"{"name":"x","ColumnSchema":[{"name":"a"}]}"#;
    assert_eq!(
        h.send("PUT", "/bad%20name/schema", JSON, bad_name)
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        h.send("PUT", "/t/schema", "application/x-protobuf", "")
            .await
            .status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(
        h.send("PUT", "/t/schema", XML, "<Wrong/>").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        h.get("/missing/schema", JSON).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn regions_report_keys_in_base64() {
    let h = Harness::new();
    let name = strata_server::TableName::parse("t").unwrap();
    h.service
        .admin()
        .create_table(
            &name,
            vec![strata_engine::FamilyOptions::new("cf")],
            vec![bytes::Bytes::from_static(b"m\xff")],
        )
        .unwrap();
    let info = h.get("/t/regions", JSON).await.json();
    assert_eq!(info["name"], "t");
    let regions = info["Region"].as_array().unwrap();
    assert_eq!(regions.len(), 2);
    assert_eq!(regions[0]["startKey"], "");
    assert_eq!(regions[0]["endKey"], b64(b"m\xff"));
    assert_eq!(regions[1]["startKey"], b64(b"m\xff"));
    assert!(regions[0]["name"].as_str().unwrap().starts_with("t,,"));
    let xml = h.get("/t/regions", XML).await.text();
    assert!(
        xml.contains("<TableInfo name=\"t\"><Region endKey="),
        "{xml}"
    );
    assert_eq!(
        h.get("/nope/regions", JSON).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn negotiation_and_protocol_errors() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    h.put_cell("t", b"r", "cf:q", Some(1), b"v").await;
    // Protobuf is not produced: 406.
    assert_eq!(
        h.get("/t/r", "application/x-protobuf").await.status,
        StatusCode::NOT_ACCEPTABLE
    );
    // Quality values pick among the offered types.
    let reply = h.get("/t/r", "text/xml;q=0.5, application/json").await;
    assert_eq!(reply.header("content-type").as_deref(), Some(JSON));
    let reply = h.get("/t/r", "*/*").await;
    assert_eq!(reply.header("content-type").as_deref(), Some(XML));
    // Unknown paths and methods.
    assert_eq!(h.get("/status", JSON).await.status, StatusCode::NOT_FOUND);
    assert_eq!(h.get("/t", JSON).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        h.call("PATCH", "/t/r", &[], Vec::new()).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
    assert_eq!(
        h.call("DELETE", "/", &[], Vec::new()).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
    // Malformed paths: 400 with HBase's first line.
    let reply = h.get("/t/r/cf:q/notatime", JSON).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(reply.text().starts_with("Bad request\r\n"));
    assert_eq!(h.get("/t/%zz", JSON).await.status, StatusCode::BAD_REQUEST);
    // A disabled table answers 503, like HBase's TableNotEnabledException.
    h.service
        .admin()
        .disable_table(&strata_server::TableName::parse("t").unwrap())
        .unwrap();
    assert_eq!(
        h.get("/t/r", JSON).await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
}

#[tokio::test]
async fn request_bodies_are_bounded() {
    let h = Harness::with_options(RestOptions {
        max_body_bytes: 1024,
        ..RestOptions::default()
    });
    h.create_table("t", &["cf"], 1).await;
    let reply = h
        .send(
            "PUT",
            "/t/r/cf:q",
            "application/octet-stream",
            vec![b'x'; 1025],
        )
        .await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    let reply = h
        .send(
            "PUT",
            "/t/r/cf:q",
            "application/octet-stream",
            vec![b'x'; 1024],
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[tokio::test]
async fn deeply_nested_xml_is_refused() {
    let h = Harness::new();
    h.create_table("t", &["cf"], 1).await;
    let body = format!("{}{}", "<a>".repeat(10_000), "</a>".repeat(10_000));
    let reply = h.send("PUT", "/t/r", XML, body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
}

/// More requests in flight than allowed: the extra one is answered 503 at once.
#[tokio::test]
async fn too_many_requests_in_flight_is_503() {
    use axum::body::Body;
    use tower::ServiceExt;
    let h = Harness::with_options(RestOptions {
        max_in_flight: 1,
        ..RestOptions::default()
    });
    h.create_table("t", &["cf"], 1).await;
    // A request whose body never ends holds the only slot.
    let stalled = futures_util::stream::pending::<Result<bytes::Bytes, std::io::Error>>();
    let request = axum::http::Request::builder()
        .method("PUT")
        .uri("/t/r/cf:q")
        .header("Content-Type", "application/octet-stream")
        .body(Body::from_stream(stalled))
        .unwrap();
    let held = tokio::spawn(h.router.clone().oneshot(request));
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let reply = h.get("/t/r", JSON).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        reply.text().starts_with("Unavailable\r\n"),
        "{}",
        reply.text()
    );
    held.abort();
    let _ = held.await;
    // The slot is free again.
    assert_eq!(h.get("/t/r", JSON).await.status, StatusCode::NOT_FOUND);
}

/// The HTTP server mounts the gateway as the fallback of its own routes.
#[tokio::test]
async fn mounts_as_the_fallback_of_another_router() {
    use axum::body::Body;
    use tower::ServiceExt;
    let h = Harness::new();
    let app = axum::Router::new()
        .route("/healthz", axum::routing::get(|| async { "ok" }))
        .fallback_service(strata_rest::router(h.service.clone()));
    let call = |path: &'static str| {
        let app = app.clone();
        async move {
            let request = axum::http::Request::get(path).body(Body::empty()).unwrap();
            let response = app.oneshot(request).await.unwrap();
            axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .unwrap()
        }
    };
    assert_eq!(&call("/healthz").await[..], b"ok");
    assert_eq!(&call("/version/cluster").await[..], b"2.6.1");
}
