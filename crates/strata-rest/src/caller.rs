//! Who a REST request is from: a bearer token in its `authorization` header, checked by
//! the server's authenticator (`[security] tokens`). A request with none is anonymous; one
//! whose token is not valid is refused with 401 and `WWW-Authenticate: Bearer` before any
//! work, as an HTTP client expects.

use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use axum::http::{header, request::Parts, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use strata_auth::Credentials;
use strata_server::access::Caller;
use strata_server::Service;

/// Credentials refused: the text the 401 carries (no secret in it).
pub(crate) struct Refused(String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        unauthorized(&self.0)
    }
}

/// The caller of `parts`, or why its credentials are refused.
pub(crate) fn caller_of(service: &Service, parts: &Parts) -> Result<Caller, Refused> {
    let authorization = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let Some(authenticator) = service.access().authenticator() else {
        return match authorization {
            None => Ok(Caller::Anonymous),
            Some(_) => Err(Refused(
                "bearer tokens are not accepted here: the server has no [security] tokens file"
                    .into(),
            )),
        };
    };
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let credentials = Credentials {
        authorization,
        certificate: None,
        peer,
    };
    match authenticator.authenticate(credentials) {
        Ok(Some(identity)) => Ok(Caller::user(identity)),
        Ok(None) => Ok(Caller::Anonymous),
        Err(e) => Err(Refused(e.to_string())),
    }
}

fn unauthorized(message: &str) -> Response {
    let mut response = (StatusCode::UNAUTHORIZED, format!("{message}\n")).into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}
