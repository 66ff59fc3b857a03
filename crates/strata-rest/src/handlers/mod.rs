//! Routes a parsed request to its handler.

mod check;
mod cluster;
mod namespaces;
mod read;
mod rows;
mod scanner;
mod schema;

use axum::http::request::Parts;
use axum::http::{header, Method, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use strata_server::TableName;

use crate::error::{RestError, RestResult};
use crate::format::{self, Format, Negotiated};
use crate::request::{self, Route};
use crate::Gateway;

/// What a handler gets: the gateway, the request's headers and query, and its body.
pub(crate) struct Call<'a> {
    pub gateway: &'a Gateway,
    pub parts: &'a Parts,
    pub params: Vec<(String, Vec<u8>)>,
    pub body: Bytes,
}

impl Call<'_> {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.parts.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The response representation among `offered` (the first is the default).
    pub fn negotiate(&self, offered: &[Format]) -> RestResult<Negotiated> {
        format::negotiate(self.header(header::ACCEPT.as_str()), offered)
    }

    /// The representation of the request body.
    pub fn body_format(&self) -> RestResult<Format> {
        format::body_format(self.header(header::CONTENT_TYPE.as_str()))
    }
}

/// Parses `ns:table` or `table`.
pub(crate) fn table_name(text: &str) -> RestResult<TableName> {
    TableName::parse(text).map_err(RestError::from)
}

/// Serves one request.
pub(crate) fn dispatch(gateway: &Gateway, parts: &Parts, body: Bytes) -> RestResult<Response> {
    let route = request::parse_route(parts.uri.path())?;
    let params = request::parse_query(parts.uri.query())?;
    let call = Call {
        gateway,
        parts,
        params,
        body,
    };
    let method = &parts.method;
    match route {
        Route::Version if method == Method::GET => cluster::version(&call),
        Route::ClusterVersion if method == Method::GET => cluster::cluster_version(&call),
        Route::ClusterStatus if method == Method::GET => cluster::cluster_status(&call),
        Route::TableList if method == Method::GET => cluster::table_list(&call),
        Route::Regions(table) if method == Method::GET => cluster::regions(&call, &table),
        Route::Exists(table) if method == Method::GET => cluster::exists(&call, &table),
        Route::Namespaces if method == Method::GET => namespaces::list(&call),
        Route::Namespace(ns) => match *method {
            Method::GET => namespaces::get(&call, &ns),
            Method::POST => namespaces::put(&call, &ns, true),
            Method::PUT => namespaces::put(&call, &ns, false),
            Method::DELETE => namespaces::delete(&call, &ns),
            _ => not_allowed(),
        },
        Route::NamespaceTables(ns) if method == Method::GET => namespaces::tables(&call, &ns),
        Route::Schema(table) => match *method {
            Method::GET => schema::get(&call, &table),
            Method::PUT => schema::put(&call, &table, true),
            Method::POST => schema::put(&call, &table, false),
            Method::DELETE => schema::delete(&call, &table),
            _ => not_allowed(),
        },
        Route::Scanners(table) if method == Method::PUT || method == Method::POST => {
            scanner::create(&call, &table)
        }
        Route::Scanner { table, id } => match *method {
            Method::GET => scanner::next(&call, &table, &id),
            Method::DELETE => scanner::delete(&call, &table, &id),
            _ => not_allowed(),
        },
        Route::MultiGet { table, columns } if method == Method::GET => {
            rows::multiget(&call, &table, &columns)
        }
        Route::TableScan { table, prefix } if method == Method::GET => {
            rows::table_scan(&call, &table, prefix)
        }
        Route::Row { table, spec } => match *method {
            Method::GET => rows::get(&call, &table, spec),
            Method::PUT | Method::POST => rows::put(&call, &table, &spec),
            Method::DELETE => rows::delete(&call, &table, &spec),
            _ => not_allowed(),
        },
        _ => not_allowed(),
    }
}

fn not_allowed() -> RestResult<Response> {
    Ok(crate::respond(
        StatusCode::METHOD_NOT_ALLOWED,
        "text/plain",
        "Method not allowed\r\n",
    ))
}

/// 200 with a rendered document; GET responses are never cached, as in HBase.
pub(crate) fn ok_document(negotiated: Negotiated, body: impl Into<axum::body::Body>) -> Response {
    let mut response = crate::respond(StatusCode::OK, negotiated.content_type, body);
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache"),
    );
    response
}

/// 200 with an empty body (successful writes and deletes).
pub(crate) fn ok_empty() -> Response {
    let mut response = Response::new(axum::body::Body::empty());
    *response.status_mut() = StatusCode::OK;
    response
}
