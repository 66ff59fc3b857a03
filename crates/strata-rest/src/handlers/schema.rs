//! `/<table>/schema`: describe (GET), create or replace (PUT), create or update (POST),
//! drop (DELETE), with HBase's status codes.

use axum::http::{header, StatusCode};
use axum::response::Response;
use strata_engine::{FamilyOptions, SchemaMetadata};
use strata_server::{AlterOp, Service, ServiceError, TableDescriptor, TableName};

use super::{ok_document, ok_empty, table_name, Call};
use crate::error::{RestError, RestResult};
use crate::format::Format;
use crate::model::schema::{describe_family, table_attrs, TableSchema};

pub(crate) fn get(call: &Call<'_>, table: &str) -> RestResult<Response> {
    let n = call.negotiate(&[Format::Text, Format::Xml, Format::Json])?;
    let table = table_name(table)?;
    let descriptor = call.gateway.service.admin().describe_table(&table)?;
    let schema = TableSchema {
        name: table.to_string(),
        attrs: table_attrs(descriptor.durability, &descriptor.metadata),
        columns: descriptor.families.iter().map(describe_family).collect(),
    };
    Ok(ok_document(n, schema.render(n.format)))
}

/// PUT (`replace`): creates the table, or gives an existing one exactly these families and
/// DURABILITY (none given: USE_DEFAULT). POST: creates the table, or adds and modifies the
/// listed families and sets the DURABILITY if one is given. Creating answers 201 with the
/// schema's URL, changing an existing table 200 (PUT: 201, as HBase).
pub(crate) fn put(call: &Call<'_>, table: &str, replace: bool) -> RestResult<Response> {
    let format = call.body_format()?;
    let name = table_name(table)?;
    let schema = TableSchema::parse(&call.body, format)?;
    let durability = schema.durability()?;
    let families = schema
        .columns
        .iter()
        .map(|c| c.to_family())
        .collect::<RestResult<Vec<_>>>()?;
    let service = &call.gateway.service;
    let exists = service.admin().describe_table(&name).is_ok();
    if !exists {
        // HBase's rule (the service itself allows empty tables, for the Bigtable API).
        if families.is_empty() {
            return Err(RestError::BadRequest(format!(
                "table {name} should have at least one column family"
            )));
        }
        let mut descriptor = TableDescriptor::new(name, families);
        descriptor.durability = durability.unwrap_or_default();
        descriptor.metadata = schema.metadata();
        service.admin().create_table_from(descriptor, Vec::new())?;
        return Ok(created(call));
    }
    set_metadata(service, &name, schema.metadata(), replace)?;
    with_table_disabled(service, &name, || {
        apply_families(service, &name, families, replace)
    })?;
    let wanted = if replace {
        Some(durability.unwrap_or_default())
    } else {
        durability
    };
    if let Some(wanted) = wanted {
        if service.admin().describe_table(&name)?.durability != wanted {
            service
                .admin()
                .alter_table(&name, AlterOp::SetDurability(wanted))?;
        }
    }
    Ok(if replace { created(call) } else { ok_empty() })
}

/// Gives the table `given` as its metadata (PUT), or adds it to what it has (POST).
fn set_metadata(
    service: &Service,
    name: &TableName,
    given: SchemaMetadata,
    replace: bool,
) -> RestResult<()> {
    let current = service.admin().describe_table(name)?.metadata;
    let wanted = if replace {
        given
    } else {
        let mut merged = current.clone();
        merged.attributes.extend(given.attributes);
        merged
    };
    if wanted != current {
        service
            .admin()
            .alter_table(name, AlterOp::SetMetadata(wanted))?;
    }
    Ok(())
}

/// 201 with the request's URL as Location, as HBase answers a schema PUT.
fn created(call: &Call<'_>) -> Response {
    let mut response = ok_empty();
    *response.status_mut() = StatusCode::CREATED;
    if let Some(host) = call.header(header::HOST.as_str()) {
        let location = format!("http://{host}{}", call.parts.uri.path());
        if let Ok(value) = header::HeaderValue::from_str(&location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
    }
    response
}

/// Runs `change` with the table disabled (adding and deleting families needs that), then
/// enables it again whatever happened, as HBase's REST server does.
fn with_table_disabled(
    service: &Service,
    name: &TableName,
    change: impl FnOnce() -> RestResult<()>,
) -> RestResult<()> {
    match service.admin().disable_table(name) {
        Ok(()) | Err(ServiceError::TableDisabled(_)) => {}
        Err(e) => return Err(e.into()),
    }
    let outcome = change();
    let enabled = service.admin().enable_table(name);
    outcome?;
    enabled.map_err(RestError::from)
}

fn apply_families(
    service: &Service,
    name: &TableName,
    families: Vec<FamilyOptions>,
    replace: bool,
) -> RestResult<()> {
    let current = service.admin().describe_table(name)?.families;
    // Added and changed families first: a table may never be left without one.
    for family in &families {
        let op = if current.iter().any(|f| f.name == family.name) {
            AlterOp::ModifyFamily(family.clone())
        } else {
            AlterOp::AddFamily(family.clone())
        };
        service.admin().alter_table(name, op)?;
    }
    if replace {
        for old in &current {
            if !families.iter().any(|f| f.name == old.name) {
                service
                    .admin()
                    .alter_table(name, AlterOp::DeleteFamily(old.name.clone().into()))?;
            }
        }
    }
    Ok(())
}

pub(crate) fn delete(call: &Call<'_>, table: &str) -> RestResult<Response> {
    let name = table_name(table)?;
    let service = &call.gateway.service;
    match service.admin().disable_table(&name) {
        Ok(()) | Err(ServiceError::TableDisabled(_)) => {}
        Err(e) => return Err(e.into()),
    }
    service.admin().delete_table(&name)?;
    Ok(ok_empty())
}
