//! Table administration: create, delete, enable, disable, modify, truncate, families, and
//! the descriptor and name listings.

use strata_server::names::TableName;
use strata_server::AlterOp;

use super::schema::{self, table_name, table_name_proto};
use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::region_name::table_string;

/// Runs one change; the caller answers with a finished procedure.
pub fn change(ctx: &Context, call: &Call) -> Result<(), RemoteException> {
    let service = &ctx.service;
    match call.method.as_str() {
        "CreateTable" => create(ctx, call.param()?),
        "DeleteTable" => Ok(service.admin().delete_table(&name_of(call)?)?),
        "EnableTable" => Ok(service.admin().enable_table(&name_of(call)?)?),
        "DisableTable" => Ok(service.admin().disable_table(&name_of(call)?)?),
        "truncateTable" => {
            let request: pb::TruncateTableRequest = call.param()?;
            let name = table_name(&request.table_name)?;
            Ok(service
                .admin()
                .truncate_table(&name, request.preserve_splits())?)
        }
        "ModifyTable" => modify(ctx, call.param()?),
        "AddColumn" | "ModifyColumn" => {
            let request: pb::ColumnRequest = call.param()?;
            let name = table_name(&request.table_name)?;
            let family = schema::family(&request.column_families)?;
            let op = if call.method == "AddColumn" {
                AlterOp::AddFamily(family)
            } else {
                AlterOp::ModifyFamily(family)
            };
            alter(ctx, &name, op)
        }
        "DeleteColumn" => {
            let request: pb::DeleteColumnRequest = call.param()?;
            let name = table_name(&request.table_name)?;
            alter(ctx, &name, AlterOp::DeleteFamily(request.column_name))
        }
        other => Err(RemoteException::invalid(format!(
            "unknown table change {other}"
        ))),
    }
}

/// One schema change. HBase adds and deletes families of an enabled table by reopening
/// its regions; Strata needs the table disabled for those, so it is disabled for the
/// change and enabled again (also when the change fails).
fn alter(ctx: &Context, name: &TableName, op: AlterOp) -> Result<(), RemoteException> {
    let offline = matches!(op, AlterOp::AddFamily(_) | AlterOp::DeleteFamily(_));
    let reopen = offline && ctx.service.admin().is_table_enabled(name)?;
    if reopen {
        ctx.service.admin().disable_table(name)?;
    }
    let result = ctx.service.admin().alter_table(name, op);
    if reopen {
        ctx.service.admin().enable_table(name)?;
    }
    Ok(result?)
}

fn name_of(call: &Call) -> Result<TableName, RemoteException> {
    let request: pb::TableNameRequest = call.param()?;
    table_name(&request.table_name)
}

fn create(ctx: &Context, request: pb::CreateTableRequest) -> Result<(), RemoteException> {
    let descriptor = schema::descriptor(&request.table_schema)?;
    ctx.service
        .admin()
        .create_table_from(descriptor, request.split_keys)?;
    Ok(())
}

/// ModifyTable: the table is brought to the new schema; families are added or deleted
/// with the table briefly disabled, as `alter` does.
fn modify(ctx: &Context, request: pb::ModifyTableRequest) -> Result<(), RemoteException> {
    let mut wanted = schema::descriptor(&request.table_schema)?;
    wanted.name = table_name(&request.table_name)?;
    let current = ctx.service.admin().describe_table(&wanted.name)?;
    let reshapes = current.families.len() != wanted.families.len()
        || current
            .families
            .iter()
            .any(|f| !wanted.families.iter().any(|w| w.name == f.name));
    let reopen = reshapes && ctx.service.admin().is_table_enabled(&wanted.name)?;
    if reopen {
        ctx.service.admin().disable_table(&wanted.name)?;
    }
    let result = ctx.service.admin().modify_table(&wanted);
    if reopen {
        ctx.service.admin().enable_table(&wanted.name)?;
    }
    Ok(result?)
}

/// GetSchemaAlterStatus: a change is applied to every region before its call answers.
pub fn alter_status(ctx: &Context, call: &Call) -> CallResult {
    let request: pb::GetSchemaAlterStatusRequest = call.param()?;
    let regions = ctx
        .service
        .admin()
        .table_regions(&table_name(&request.table_name)?)?;
    Ok(Reply::message(&pb::GetSchemaAlterStatusResponse {
        yet_to_update_regions: Some(0),
        total_regions: Some(u32::try_from(regions.len()).unwrap_or(u32::MAX)),
    }))
}

/// Serves the listings.
pub fn read(ctx: &Context, call: &Call) -> CallResult {
    let service = &ctx.service;
    match call.method.as_str() {
        "GetTableDescriptors" => {
            let request: pb::GetTableDescriptorsRequest = call.param()?;
            let names = if request.table_names.is_empty() {
                filtered(ctx, request.regex.as_deref(), request.namespace.as_deref())?
            } else {
                request
                    .table_names
                    .iter()
                    .map(table_name)
                    .collect::<Result<Vec<_>, _>>()?
            };
            // A name that does not exist is left out, as HBase does.
            let schemas = names
                .iter()
                .filter_map(|n| service.admin().describe_table(n).ok())
                .map(|d| schema::table_schema(&d))
                .collect();
            Ok(Reply::message(&pb::GetTableDescriptorsResponse {
                table_schema: schemas,
            }))
        }
        "ListTableDescriptorsByState" => {
            let request: pb::ListTableDescriptorsByStateRequest = call.param()?;
            let schemas = service
                .admin()
                .list_tables()
                .iter()
                .filter(|n| service.admin().is_table_enabled(n).ok() == Some(request.is_enabled))
                .filter_map(|n| service.admin().describe_table(n).ok())
                .map(|d| schema::table_schema(&d))
                .collect();
            Ok(Reply::message(&pb::GetTableDescriptorsResponse {
                table_schema: schemas,
            }))
        }
        "GetTableNames" => {
            let request: pb::GetTableNamesRequest = call.param()?;
            let names = filtered(ctx, request.regex.as_deref(), request.namespace.as_deref())?;
            Ok(Reply::message(&pb::GetTableNamesResponse {
                table_names: names.iter().map(table_name_proto).collect(),
            }))
        }
        "GetTableState" => {
            let request: pb::GetTableStateRequest = call.param()?;
            let enabled = service
                .admin()
                .is_table_enabled(&table_name(&request.table_name)?)?;
            let state = if enabled {
                pb::table_state::State::Enabled
            } else {
                pb::table_state::State::Disabled
            };
            Ok(Reply::message(&pb::GetTableStateResponse {
                table_state: pb::TableState {
                    state: state as i32,
                },
            }))
        }
        "ListTableDescriptorsByNamespace" | "ListTableNamesByNamespace" => by_namespace(ctx, call),
        other => Err(RemoteException::invalid(format!(
            "unknown table listing {other}"
        ))),
    }
}

fn by_namespace(ctx: &Context, call: &Call) -> CallResult {
    let request: pb::NamespaceNameRequest = call.param()?;
    if !ctx
        .service
        .admin()
        .list_namespaces()
        .contains(&request.namespace_name)
    {
        return Err(strata_server::ServiceError::NamespaceNotFound(request.namespace_name).into());
    }
    let names = filtered(ctx, None, Some(&request.namespace_name))?;
    if call.method == "ListTableNamesByNamespace" {
        return Ok(Reply::message(&pb::ListTableNamesByNamespaceResponse {
            table_name: names.iter().map(table_name_proto).collect(),
        }));
    }
    let schemas = names
        .iter()
        .filter_map(|n| ctx.service.admin().describe_table(n).ok())
        .map(|d| schema::table_schema(&d))
        .collect();
    Ok(Reply::message(
        &pb::ListTableDescriptorsByNamespaceResponse {
            table_schema: schemas,
        },
    ))
}

/// The tables whose `ns:name` form matches `regex` (whole-string, as Java's `matches`),
/// in `namespace` if given. An empty namespace is none, as HMaster takes it: gohbase
/// always sends the field, empty when it lists every table.
fn filtered(
    ctx: &Context,
    regex: Option<&str>,
    namespace: Option<&str>,
) -> Result<Vec<TableName>, RemoteException> {
    let pattern = regex.map(regex_lite).transpose()?;
    let mut names: Vec<TableName> = ctx
        .service
        .admin()
        .list_tables()
        .into_iter()
        .filter(|n| {
            namespace
                .filter(|ns| !ns.is_empty())
                .is_none_or(|ns| n.namespace == ns)
        })
        .filter(|n| {
            pattern
                .as_ref()
                .is_none_or(|p| p.is_match(&table_string(n)))
        })
        .collect();
    names.sort_by_key(table_string);
    Ok(names)
}

fn regex_lite(pattern: &str) -> Result<regex::Regex, RemoteException> {
    regex::Regex::new(&format!("^(?:{})$", unquote(pattern)))
        .map_err(|e| RemoteException::invalid(format!("bad table name pattern: {e}")))
}

/// Java's `\Q...\E` quoting (what `Pattern.quote` writes, and what HBase's client sends
/// for one exact name), which Rust's regex crate does not know, as escaped text.
fn unquote(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(start) = rest.find("\\Q") {
        out.push_str(&rest[..start]);
        let quoted = &rest[start + 2..];
        let end = quoted.find("\\E").unwrap_or(quoted.len());
        out.push_str(&regex::escape(&quoted[..end]));
        rest = quoted.get(end + 2..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_quoting_matches_the_exact_name() {
        let re = regex_lite("\\Qa.b\\E").unwrap();
        assert!(re.is_match("a.b"));
        assert!(!re.is_match("axb"));
        let re = regex_lite("ns:\\Qt\\E.*").unwrap();
        assert!(re.is_match("ns:t1"));
        assert!(regex_lite("\\Qunterminated")
            .unwrap()
            .is_match("unterminated"));
    }
}
