//! The gateway's one error type, answered with the status codes and plain-text bodies
//! HBase's REST server uses ("Not found", "Bad request", "Unavailable", each followed by
//! CRLF and the detail).

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use strata_server::{ErrorKind, LimitClass, ServiceError};

use crate::request::RequestError;

/// What can go wrong serving a request.
#[derive(Debug, thiserror::Error)]
pub enum RestError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("unsupported media type {0}")]
    UnsupportedMediaType(String),
    #[error("none of the accepted media types can be produced: {0}")]
    NotAcceptable(String),
    #[error("request body is larger than the limit of {0} bytes (limits.rest_max_body_bytes)")]
    PayloadTooLarge(usize),
    #[error("{0}")]
    Unavailable(String),
    /// Stored data that cannot be read back: never answered as a client error.
    #[error("corruption: {0}")]
    Corruption(String),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

/// The gateway's result type.
pub type RestResult<T> = Result<T, RestError>;

impl From<RequestError> for RestError {
    fn from(e: RequestError) -> Self {
        match e {
            RequestError::BadRequest(m) => RestError::BadRequest(m),
            RequestError::NotFound => RestError::NotFound("no resource at this path".into()),
        }
    }
}

impl RestError {
    /// The HTTP status and the first line of the body, as HBase's REST server answers.
    fn status(&self) -> (StatusCode, &'static str) {
        match self {
            RestError::NotFound(_) => (StatusCode::NOT_FOUND, "Not found"),
            RestError::BadRequest(_) => (StatusCode::BAD_REQUEST, "Bad request"),
            RestError::UnsupportedMediaType(_) => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported media type")
            }
            RestError::NotAcceptable(_) => (StatusCode::NOT_ACCEPTABLE, "Not acceptable"),
            RestError::PayloadTooLarge(_) => {
                (StatusCode::PAYLOAD_TOO_LARGE, "Request entity too large")
            }
            RestError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "Unavailable"),
            RestError::Corruption(_) => (StatusCode::INTERNAL_SERVER_ERROR, "Internal error"),
            RestError::Service(e) => service_status(e),
        }
    }
}

/// A service error's status, by its kind, refined where HBase's REST server differs: it
/// answers a disabled table with 503 (its other failed preconditions are bad requests), and
/// a limit by what it limits.
fn service_status(e: &ServiceError) -> (StatusCode, &'static str) {
    match (e, e.kind()) {
        (ServiceError::LimitExceeded { class, .. }, _) => limit_status(*class),
        (ServiceError::TableDisabled(_), _) => (StatusCode::SERVICE_UNAVAILABLE, "Unavailable"),
        (_, ErrorKind::NotFound) => (StatusCode::NOT_FOUND, "Not found"),
        (
            _,
            ErrorKind::InvalidArgument | ErrorKind::AlreadyExists | ErrorKind::FailedPrecondition,
        ) => (StatusCode::BAD_REQUEST, "Bad request"),
        (_, ErrorKind::PermissionDenied) => (StatusCode::FORBIDDEN, "Forbidden"),
        (_, ErrorKind::Corruption) => (StatusCode::INTERNAL_SERVER_ERROR, "Internal error"),
        // A busy or moving region, an I/O failure: HBase answers 503.
        (_, ErrorKind::Busy | ErrorKind::Unavailable | ErrorKind::Io) => {
            (StatusCode::SERVICE_UNAVAILABLE, "Unavailable")
        }
        // A kind newer than this adapter: a failure it cannot say more about.
        (_, _) => (StatusCode::INTERNAL_SERVER_ERROR, "Internal error"),
    }
}

/// Too many scanners open is the server's condition (503, retried later); too much in one
/// request is 413; a key or filter over its limit is a bad request.
fn limit_status(class: LimitClass) -> (StatusCode, &'static str) {
    match class {
        LimitClass::Capacity => (StatusCode::SERVICE_UNAVAILABLE, "Unavailable"),
        LimitClass::Payload => (StatusCode::PAYLOAD_TOO_LARGE, "Request entity too large"),
        LimitClass::Shape => (StatusCode::BAD_REQUEST, "Bad request"),
    }
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let (status, title) = self.status();
        if status.is_server_error() {
            tracing::warn!(error = %self, "REST request failed");
        }
        let body = format!("{title}\r\n{self}\r\n");
        (status, [(header::CONTENT_TYPE, "text/plain")], body).into_response()
    }
}
