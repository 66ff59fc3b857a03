//! Shared by the HTTP tests that call the router directly (no socket).
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use strata_http::HttpState;
use strata_server::Service;
use tower::ServiceExt;

/// The body of `GET path` on a router over `service`, which must answer 200.
pub async fn body(service: &Arc<Service>, path: &str) -> String {
    let http = Arc::new(HttpState::new(
        "9.9.9",
        Vec::new(),
        strata_runtime::clock::system(),
    ));
    let router = strata_http::router(Arc::clone(service), http);
    let response = router
        .oneshot(Request::get(path).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}
