//! `/version`, `/version/cluster`, `/status/cluster`, `/` and `/<table>/regions`.

use axum::response::Response;

use super::{ok_document, table_name, Call};
use crate::error::RestResult;
use crate::format::Format;
use crate::model::cluster::{self, RegionLoad};

/// Plain text first, as HBase's resources list it.
const DOCUMENT_FORMATS: &[Format] = &[Format::Text, Format::Xml, Format::Json];

pub(crate) fn version(call: &Call<'_>) -> RestResult<Response> {
    let n = call.negotiate(DOCUMENT_FORMATS)?;
    Ok(ok_document(n, cluster::version(n.format)))
}

pub(crate) fn cluster_version(call: &Call<'_>) -> RestResult<Response> {
    let n = call.negotiate(DOCUMENT_FORMATS)?;
    Ok(ok_document(n, cluster::cluster_version(n.format)))
}

pub(crate) fn cluster_status(call: &Call<'_>) -> RestResult<Response> {
    let n = call.negotiate(DOCUMENT_FORMATS)?;
    let service = &call.gateway.service;
    let mut loads = Vec::new();
    for table in service.admin().list_tables() {
        // A table dropped meanwhile simply has no regions to report.
        let stores = service
            .admin()
            .describe_table(&table)
            .map_or(0, |d| d.families.len());
        for region in service.admin().table_regions(&table).unwrap_or_default() {
            loads.push(RegionLoad {
                name: region.name,
                stores,
            });
        }
    }
    let location = &call.gateway.options.location;
    Ok(ok_document(
        n,
        cluster::cluster_status(&loads, location, n.format),
    ))
}

pub(crate) fn table_list(call: &Call<'_>) -> RestResult<Response> {
    let n = call.negotiate(DOCUMENT_FORMATS)?;
    let tables = call.gateway.service.admin().list_tables();
    Ok(ok_document(n, cluster::table_list(&tables, n.format)))
}

pub(crate) fn regions(call: &Call<'_>, table: &str) -> RestResult<Response> {
    let n = call.negotiate(DOCUMENT_FORMATS)?;
    let table = table_name(table)?;
    let regions = call.gateway.service.admin().table_regions(&table)?;
    let location = &call.gateway.options.location;
    Ok(ok_document(
        n,
        cluster::table_info(&table, &regions, location, n.format),
    ))
}

/// `/<table>/exists`: 200 with no body, or 404.
pub(crate) fn exists(call: &Call<'_>, table: &str) -> RestResult<Response> {
    let table = table_name(table)?;
    call.gateway.service.admin().describe_table(&table)?;
    Ok(super::ok_empty())
}
