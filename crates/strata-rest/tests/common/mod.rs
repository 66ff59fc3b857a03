//! A router over a fresh service in a temporary directory, and a one-call HTTP helper.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use strata_rest::RestOptions;
use strata_server::{Service, ServiceOptions};
use tower::ServiceExt;

pub struct Harness {
    pub service: Arc<Service>,
    pub router: axum::Router,
    _dir: tempfile::TempDir,
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }
}

pub fn b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

pub fn unb64(text: &str) -> Vec<u8> {
    B64.decode(text).unwrap()
}

impl Harness {
    pub fn new() -> Harness {
        Harness::with_options(RestOptions::default())
    }

    pub fn with_options(options: RestOptions) -> Harness {
        Harness::with_service(options, |_| {})
    }

    /// A harness whose service options `service` adjusts first.
    pub fn with_service(
        options: RestOptions,
        service: impl FnOnce(&mut ServiceOptions),
    ) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let mut service_options = ServiceOptions::new(dir.path());
        service(&mut service_options);
        let service = Service::open(service_options).unwrap();
        let router = strata_rest::router_with(Arc::clone(&service), options);
        Harness {
            service,
            router,
            _dir: dir,
        }
    }

    pub async fn call(
        &self,
        method: &str,
        uri: &str,
        headers: &[(&str, &str)],
        body: impl Into<Vec<u8>>,
    ) -> Reply {
        let mut request = Request::builder()
            .method(Method::from_bytes(method.as_bytes()).unwrap())
            .uri(uri)
            .header("Host", "localhost:8080");
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let request = request.body(Body::from(body.into())).unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap()
            .to_vec();
        Reply {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, uri: &str, accept: &str) -> Reply {
        self.call("GET", uri, &[("Accept", accept)], Vec::new())
            .await
    }

    pub async fn send(
        &self,
        method: &str,
        uri: &str,
        content_type: &str,
        body: impl Into<Vec<u8>>,
    ) -> Reply {
        self.call(method, uri, &[("Content-Type", content_type)], body)
            .await
    }

    /// Creates `table` with the families, each keeping `versions` versions.
    pub async fn create_table(&self, table: &str, families: &[&str], versions: u32) {
        let columns: Vec<serde_json::Value> = families
            .iter()
            .map(|f| serde_json::json!({"name": f, "VERSIONS": versions.to_string()}))
            .collect();
        let body = serde_json::json!({"name": table, "ColumnSchema": columns}).to_string();
        let reply = self
            .send("PUT", &format!("/{table}/schema"), "application/json", body)
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    }

    /// Puts one cell through a JSON CellSet.
    pub async fn put_cell(
        &self,
        table: &str,
        row: &[u8],
        column: &str,
        ts: Option<i64>,
        value: &[u8],
    ) {
        let mut cell = serde_json::json!({"column": b64(column.as_bytes()), "$": b64(value)});
        if let Some(ts) = ts {
            cell["timestamp"] = ts.into();
        }
        let body = serde_json::json!({"Row": [{"key": b64(row), "Cell": [cell]}]}).to_string();
        let reply = self
            .send(
                "PUT",
                &format!("/{table}/fakerow"),
                "application/json",
                body,
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    }
}

/// A decoded cell: (row, column, timestamp, value).
pub type DecodedCell = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// The cells of a JSON CellSet, decoded.
pub fn json_cells(value: &serde_json::Value) -> Vec<DecodedCell> {
    let mut out = Vec::new();
    for row in value["Row"].as_array().unwrap() {
        let key = unb64(row["key"].as_str().unwrap());
        for cell in row["Cell"].as_array().unwrap() {
            out.push((
                key.clone(),
                unb64(cell["column"].as_str().unwrap()),
                cell["timestamp"].as_i64().unwrap(),
                unb64(cell["$"].as_str().unwrap()),
            ));
        }
    }
    out
}

/// Percent-encodes every byte that is not unreserved (so `/`, `,`, `*`, `+` are escaped).
pub fn encode(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
