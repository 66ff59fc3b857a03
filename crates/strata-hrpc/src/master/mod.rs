//! The part of MasterService Strata serves. Every change runs before the call answers;
//! its procedure id then names a procedure that is already FINISHED, so the client's
//! wait for it ends at its first `getProcedureResult`.

mod cluster;
mod namespaces;
mod permissions;
mod regions;
mod schema;
mod snapshots;
mod tables;

use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;

/// Serves one MasterService method.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    match call.method.as_str() {
        "IsMasterRunning" => Ok(Reply::message(&pb::IsMasterRunningResponse {
            is_master_running: true,
        })),
        "getProcedureResult" => procedure_result(call),
        "GetClusterStatus" => cluster::status(ctx, call),
        "GetSchemaAlterStatus" => tables::alter_status(ctx, call),
        "CreateTable" | "DeleteTable" | "EnableTable" | "DisableTable" | "ModifyTable"
        | "truncateTable" | "AddColumn" | "ModifyColumn" | "DeleteColumn" => {
            tables::change(ctx, call)?;
            Ok(Reply::message(&pb::ProcedureResponse {
                proc_id: Some(ctx.next_procedure()),
            }))
        }
        "GetTableDescriptors"
        | "ListTableDescriptorsByState"
        | "GetTableNames"
        | "GetTableState"
        | "ListTableDescriptorsByNamespace"
        | "ListTableNamesByNamespace" => tables::read(ctx, call),
        "CreateNamespace" | "DeleteNamespace" | "ModifyNamespace" => {
            namespaces::change(ctx, call)?;
            Ok(Reply::message(&pb::ProcedureResponse {
                proc_id: Some(ctx.next_procedure()),
            }))
        }
        "GetNamespaceDescriptor" | "ListNamespaceDescriptors" | "ListNamespaces" => {
            namespaces::read(ctx, call)
        }
        "SplitRegion" | "MergeTableRegions" | "MoveRegion" | "Balance" | "SetBalancerRunning"
        | "IsBalancerEnabled" => regions::serve(ctx, call),
        "Snapshot"
        | "IsSnapshotDone"
        | "GetCompletedSnapshots"
        | "DeleteSnapshot"
        | "RestoreSnapshot" => snapshots::serve(ctx, call),
        "Grant" | "Revoke" | "GetUserPermissions" | "HasUserPermissions" => {
            permissions::serve(ctx, call)
        }
        "IsSnapshotCleanupEnabled" | "IsNormalizerEnabled" => {
            // Strata has neither a snapshot cleanup nor a normalizer.
            Ok(Reply::message(&pb::EnabledResponse { enabled: false }))
        }
        other => Err(RemoteException::invalid(format!(
            "MasterService.{other} is not supported by Strata"
        ))),
    }
}

fn procedure_result(call: &Call) -> CallResult {
    let _request: pb::GetProcedureResultRequest = call.param()?;
    Ok(Reply::message(&pb::GetProcedureResultResponse {
        state: pb::get_procedure_result_response::State::Finished as i32,
        submitted_time: None,
        last_update: None,
        result: None,
    }))
}
