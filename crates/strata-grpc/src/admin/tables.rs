//! CreateTable, GetTable and ListTables.
//!
//! A Bigtable instance is a Strata namespace. Bigtable instances exist before their tables;
//! Strata has no instance admin API, so CreateTable creates the namespace on first use
//! (`default` always exists). A table's granularity is MILLIS (HBase timestamps), and its
//! one "cluster" is reported READY.

use std::collections::HashMap;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as pb;
use pb::table::{cluster_state::ReplicationState, ClusterState, TimestampGranularity, View};
use strata_engine::FamilyOptions;
use strata_server::{Service, ServiceError, TableName};
use tonic::Status;

use super::families::{family_from_message, family_messages};

/// The cluster id reported in REPLICATION_VIEW / ENCRYPTION_VIEW / FULL: one server, one
/// copy of the data.
pub const CLUSTER_ID: &str = "strata";

/// The largest page ListTables returns without a page size.
const DEFAULT_PAGE_SIZE: usize = 1000;

/// What parts of a table a view asks for.
#[derive(Debug, Clone, Copy)]
struct Parts {
    schema: bool,
    clusters: bool,
}

fn parts(view: i32, unspecified: View, field: &str) -> Result<Parts, Status> {
    let view = View::try_from(view)
        .map_err(|_| Status::invalid_argument(format!("{field}: unknown view {view}")))?;
    let view = if view == View::Unspecified {
        unspecified
    } else {
        view
    };
    Ok(match view {
        View::NameOnly | View::Unspecified => Parts {
            schema: false,
            clusters: false,
        },
        View::SchemaView => Parts {
            schema: true,
            clusters: false,
        },
        View::ReplicationView | View::EncryptionView => Parts {
            schema: false,
            clusters: true,
        },
        View::Full => Parts {
            schema: true,
            clusters: true,
        },
    })
}

/// The project named in a resource name (Strata keeps no projects; it is echoed back).
pub fn project_of(name: &str) -> &str {
    name.split('/').nth(1).unwrap_or_default()
}

fn message(project: &str, name: &TableName, families: &[FamilyOptions], parts: Parts) -> pb::Table {
    let mut table = pb::Table {
        name: crate::names::bigtable_name(project, name),
        ..Default::default()
    };
    if parts.schema {
        table.column_families = family_messages(families);
        table.granularity = TimestampGranularity::Millis as i32;
    }
    if parts.clusters {
        table.cluster_states = HashMap::from([(
            CLUSTER_ID.to_string(),
            ClusterState {
                replication_state: ReplicationState::Ready as i32,
                encryption_info: Vec::new(),
            },
        )]);
    }
    table
}

/// The table as `view` shows it (SCHEMA_VIEW when unspecified, as Bigtable's GetTable).
pub fn get(service: &Service, request: &pb::GetTableRequest) -> Result<pb::Table, Status> {
    let name = crate::names::table_of("name", &request.name)?;
    let parts = parts(request.view, View::SchemaView, "view")?;
    let descriptor = service
        .admin()
        .describe_table(&name)
        .map_err(crate::error::status)?;
    Ok(message(
        project_of(&request.name),
        &name,
        &descriptor.families,
        parts,
    ))
}

/// One page of the instance's tables in name order (NAME_ONLY when the view is
/// unspecified). The page token is the name of the last table of the previous page.
pub fn list(
    service: &Service,
    request: &pb::ListTablesRequest,
) -> Result<pb::ListTablesResponse, Status> {
    let namespace = crate::names::instance_of(&request.parent)?;
    let project = project_of(&request.parent);
    let parts = parts(request.view, View::NameOnly, "view")?;
    let page_size = match usize::try_from(request.page_size) {
        Ok(0) => DEFAULT_PAGE_SIZE,
        Ok(n) => n,
        Err(_) => {
            return Err(Status::invalid_argument(format!(
                "page_size: must not be negative, got {}",
                request.page_size
            )))
        }
    };
    let mut names: Vec<TableName> = service
        .admin()
        .list_tables()
        .into_iter()
        .filter(|t| t.namespace == namespace && t.name.as_str() > request.page_token.as_str())
        .collect();
    names.sort_by(|a, b| a.name.cmp(&b.name));
    let more = names.len() > page_size;
    names.truncate(page_size);
    let mut tables = Vec::with_capacity(names.len());
    for name in &names {
        let families = if parts.schema {
            match service.admin().describe_table(name) {
                Ok(d) => d.families,
                // Deleted since it was listed: not part of the answer.
                Err(ServiceError::TableNotFound(_)) => continue,
                Err(e) => return Err(crate::error::status(e)),
            }
        } else {
            Vec::new()
        };
        tables.push(message(project, name, &families, parts));
    }
    let next_page_token = match names.last() {
        Some(last) if more => last.name.clone(),
        _ => String::new(),
    };
    Ok(pb::ListTablesResponse {
        tables,
        next_page_token,
    })
}

/// Creates the table (and its instance's namespace on first use); returns it in
/// SCHEMA_VIEW.
pub fn create(service: &Service, request: &pb::CreateTableRequest) -> Result<pb::Table, Status> {
    let namespace = crate::names::instance_of(&request.parent)?;
    if request.table_id.is_empty() {
        return Err(Status::invalid_argument("table_id: a table id is needed"));
    }
    let name = TableName::parse(&format!("{namespace}:{}", request.table_id))
        .map_err(|e| Status::invalid_argument(format!("table_id: {e}")))?;
    let table = request.table.clone().unwrap_or_default();
    check_table_settings(&table)?;
    let families = families(&table)?;
    let splits = splits(&request.initial_splits)?;
    if !service.admin().list_namespaces().contains(&namespace) {
        match service.admin().create_namespace(&namespace) {
            Ok(()) | Err(ServiceError::NamespaceExists(_)) => {}
            Err(e) => return Err(crate::error::status(e)),
        }
    }
    service
        .admin()
        .create_table(&name, families.clone(), splits)
        .map_err(crate::error::status)?;
    let all = Parts {
        schema: true,
        clusters: false,
    };
    Ok(message(project_of(&request.parent), &name, &families, all))
}

/// Refuses table settings Strata cannot honour rather than ignoring them.
fn check_table_settings(table: &pb::Table) -> Result<(), Status> {
    let granularity = table.granularity;
    if granularity != TimestampGranularity::Unspecified as i32
        && granularity != TimestampGranularity::Millis as i32
    {
        return Err(Status::invalid_argument(format!(
            "table.granularity: only MILLIS is supported, got {granularity}"
        )));
    }
    let unsupported = [
        (table.deletion_protection, "table.deletion_protection"),
        (
            table.change_stream_config.is_some(),
            "table.change_stream_config",
        ),
        (
            table.automated_backup_config.is_some(),
            "table.automated_backup_policy",
        ),
        (
            table.tiered_storage_config.is_some(),
            "table.tiered_storage_config",
        ),
        (table.row_key_schema.is_some(), "table.row_key_schema"),
    ];
    match unsupported.iter().find(|(set, _)| *set) {
        Some((_, field)) => Err(Status::invalid_argument(format!(
            "{field}: not supported by Strata"
        ))),
        None => Ok(()),
    }
}

/// The families of a new table, in name order.
fn families(table: &pb::Table) -> Result<Vec<FamilyOptions>, Status> {
    let mut ids: Vec<&String> = table.column_families.keys().collect();
    ids.sort();
    ids.into_iter()
        .map(|id| {
            let field = format!("table.column_families[{id:?}]");
            family_from_message(&field, id, &table.column_families[id])
        })
        .collect()
}

/// The split keys, sorted and without repeats (Bigtable accepts them in any order).
fn splits(splits: &[pb::create_table_request::Split]) -> Result<Vec<Bytes>, Status> {
    let mut keys = Vec::with_capacity(splits.len());
    for (i, split) in splits.iter().enumerate() {
        if split.key.is_empty() {
            return Err(Status::invalid_argument(format!(
                "initial_splits[{i}].key: must not be empty"
            )));
        }
        keys.push(split.key.clone());
    }
    keys.sort();
    keys.dedup();
    Ok(keys)
}
