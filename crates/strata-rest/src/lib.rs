//! A gateway speaking HBase's REST API (the `hbase-rest` "Stargate" server) onto Strata's
//! service layer: the same paths, methods, status codes and JSON / XML / raw-value
//! representations (see docs/rest.md for the differences).
//!
//! `router` returns an axum router whose one fallback handler serves every path, so it can
//! be mounted as the fallback of another router.

mod caller;
pub mod error;
pub mod format;
pub mod fuzz_support;
mod handlers;
pub mod model;
pub mod request;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Router;
use strata_server::Service;
use tokio::sync::Semaphore;

pub use error::{RestError, RestResult};

/// Limits and settings of the gateway.
#[derive(Debug, Clone)]
pub struct RestOptions {
    /// Largest request body accepted (413 above it).
    pub max_body_bytes: usize,
    /// Most cells one scanner fetch returns, whatever the scanner's batch asks.
    pub max_scanner_batch: usize,
    /// Most rows a single GET of a row range, glob or multiget may return (400 above it: use
    /// a scanner).
    pub max_result_rows: usize,
    /// Requests served at once; more are answered 503 (HBase's "too busy").
    pub max_in_flight: usize,
    /// The server address reported as region locations.
    pub location: String,
}

impl Default for RestOptions {
    fn default() -> Self {
        RestOptions {
            max_body_bytes: 64 << 20,
            max_scanner_batch: 10_000,
            max_result_rows: 100_000,
            max_in_flight: 256,
            location: "localhost:0".to_string(),
        }
    }
}

/// The gateway's shared state.
pub(crate) struct Gateway {
    pub service: Arc<Service>,
    pub options: RestOptions,
    in_flight: Arc<Semaphore>,
}

/// The REST API over `service`, with default limits.
pub fn router(service: Arc<Service>) -> Router {
    router_with(service, RestOptions::default())
}

/// The REST API over `service` with `options`.
pub fn router_with(service: Arc<Service>, options: RestOptions) -> Router {
    let gateway = Arc::new(Gateway {
        service,
        in_flight: Arc::new(Semaphore::new(options.max_in_flight.max(1))),
        options,
    });
    Router::new().fallback(serve).with_state(gateway)
}

async fn serve(State(gateway): State<Arc<Gateway>>, request: Request) -> Response {
    let Ok(_permit) = Arc::clone(&gateway.in_flight).try_acquire_owned() else {
        return RestError::Unavailable(
            "too many requests in flight (limits.rest_max_in_flight); retry later".into(),
        )
        .into_response();
    };
    let (parts, body) = request.into_parts();
    let limit = gateway.options.max_body_bytes;
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return RestError::PayloadTooLarge(limit).into_response();
    }
    let body = match axum::body::to_bytes(body, limit).await {
        Ok(body) => body,
        Err(_) => return RestError::PayloadTooLarge(limit).into_response(),
    };
    let caller = match caller::caller_of(&gateway.service, &parts) {
        Ok(caller) => caller,
        Err(refused) => return refused.into_response(),
    };
    // Service calls block on storage: keep them off the async workers.
    let handled = tokio::task::spawn_blocking(move || {
        strata_server::access::as_caller(caller, || {
            handlers::dispatch(&gateway, &parts, body).unwrap_or_else(IntoResponse::into_response)
        })
    })
    .await;
    handled.unwrap_or_else(|_| {
        RestError::Unavailable("the request handler failed".into()).into_response()
    })
}

/// A response with a body of `content_type`.
pub(crate) fn respond(
    status: axum::http::StatusCode,
    content_type: &str,
    body: impl Into<Body>,
) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    if let Ok(value) = header::HeaderValue::from_str(content_type) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}
