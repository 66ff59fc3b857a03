//! `/namespaces`, `/namespaces/<ns>` (GET, POST creates, PUT alters, DELETE drops) and
//! `/namespaces/<ns>/tables`, with the status codes HBase's REST server answers. Strata's
//! namespaces carry no properties, so a namespace describes as empty.

use axum::http::{header, StatusCode};
use axum::response::Response;
use strata_server::{ServiceError, TableName};

use super::{ok_document, ok_empty, Call};
use crate::error::{RestError, RestResult};
use crate::format::Format;
use crate::model::cluster::table_list;
use crate::model::xml::{self, escape};

const FORMATS: &[Format] = &[Format::Text, Format::Xml, Format::Json];

fn forbidden(message: String) -> Response {
    crate::respond(StatusCode::FORBIDDEN, "text/plain", message)
}

fn exists(call: &Call<'_>, namespace: &str) -> bool {
    call.gateway
        .service
        .admin()
        .list_namespaces()
        .iter()
        .any(|n| n == namespace)
}

pub(crate) fn list(call: &Call<'_>) -> RestResult<Response> {
    let n = call.negotiate(FORMATS)?;
    let namespaces = call.gateway.service.admin().list_namespaces();
    let body = match n.format {
        Format::Json => serde_json::json!({ "Namespace": namespaces }).to_string(),
        Format::Xml => {
            let items: String = namespaces
                .iter()
                .map(|ns| format!("<Namespace>{}</Namespace>", escape(ns)))
                .collect();
            format!("{}<Namespaces>{items}</Namespaces>", xml::DECLARATION)
        }
        _ => namespaces.iter().map(|ns| format!("{ns}\n")).collect(),
    };
    Ok(ok_document(n, body))
}

pub(crate) fn get(call: &Call<'_>, namespace: &str) -> RestResult<Response> {
    let n = call.negotiate(FORMATS)?;
    if !exists(call, namespace) {
        return Err(ServiceError::NamespaceNotFound(namespace.to_string()).into());
    }
    let body = match n.format {
        Format::Json => r#"{"properties":null}"#.to_string(),
        Format::Xml => format!("{}<NamespaceProperties/>", xml::DECLARATION),
        _ => String::new(),
    };
    Ok(ok_document(n, body))
}

pub(crate) fn tables(call: &Call<'_>, namespace: &str) -> RestResult<Response> {
    let n = call.negotiate(FORMATS)?;
    if !exists(call, namespace) {
        return Err(ServiceError::NamespaceNotFound(namespace.to_string()).into());
    }
    // Listed by their names within the namespace, as HBase does.
    let names: Vec<TableName> = call
        .gateway
        .service
        .admin()
        .list_tables()
        .into_iter()
        .filter(|t| t.namespace == namespace)
        .map(|t| TableName {
            namespace: strata_server::DEFAULT_NAMESPACE.to_string(),
            name: t.name,
        })
        .collect();
    Ok(ok_document(n, table_list(&names, n.format)))
}

/// POST creates (403 if it exists), PUT alters (403 if it does not; nothing to alter).
pub(crate) fn put(call: &Call<'_>, namespace: &str, create: bool) -> RestResult<Response> {
    let present = exists(call, namespace);
    if create && present {
        return Ok(forbidden(format!(
            "Namespace '{namespace}' already exists.  Use REST PUT to alter the existing namespace."
        )));
    }
    if !create && !present {
        return Ok(forbidden(format!(
            "Namespace '{namespace}' does not exist. Use REST POST to create the namespace."
        )));
    }
    if !create {
        return Ok(ok_empty());
    }
    call.gateway.service.admin().create_namespace(namespace)?;
    let mut response = ok_empty();
    *response.status_mut() = StatusCode::CREATED;
    if let Some(host) = call.header(header::HOST.as_str()) {
        let location = format!("http://{host}{}", call.parts.uri.path());
        if let Ok(value) = header::HeaderValue::from_str(&location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
    }
    Ok(response)
}

pub(crate) fn delete(call: &Call<'_>, namespace: &str) -> RestResult<Response> {
    if !exists(call, namespace) {
        return Err(RestError::NotFound(format!(
            "Namespace '{namespace}' does not exists.  Cannot drop namespace."
        )));
    }
    match call.gateway.service.admin().drop_namespace(namespace) {
        Ok(()) => Ok(ok_empty()),
        // HBase answers 503 for a namespace that still holds tables.
        Err(e @ ServiceError::NamespaceNotEmpty(_)) => Err(RestError::Unavailable(e.to_string())),
        Err(e) => Err(e.into()),
    }
}
