//! MasterService's snapshots: take, list, delete, restore and clone, each carried out before
//! the call answers (Strata's snapshots are hard links, so taking one is quick). Strata has
//! snapshots standalone only; in cluster mode the service refuses them with a clear error.

use strata_server::names::TableName;
use strata_server::SnapshotInfo;

use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::region_name::{parse_table, table_string};

/// Serves one snapshot call.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    let service = &ctx.service;
    match call.method.as_str() {
        "Snapshot" => {
            let request: pb::SnapshotRequest = call.param()?;
            let snapshot = request.snapshot;
            let table = snapshot_table(&snapshot)?
                .ok_or_else(|| RemoteException::invalid("a snapshot needs a table"))?;
            service.admin().snapshot_table(&table, &snapshot.name)?;
            Ok(Reply::message(&pb::SnapshotResponse {
                expected_timeout: 60_000,
                proc_id: i64::try_from(ctx.next_procedure()).ok(),
            }))
        }
        "IsSnapshotDone" => {
            let request: pb::IsSnapshotDoneRequest = call.param()?;
            let name = request.snapshot.map(|s| s.name).unwrap_or_default();
            let found = find(ctx, &name)?;
            Ok(Reply::message(&pb::IsSnapshotDoneResponse {
                done: Some(true),
                snapshot: Some(description(&found)),
            }))
        }
        "GetCompletedSnapshots" => Ok(Reply::message(&pb::GetCompletedSnapshotsResponse {
            snapshots: service
                .admin()
                .list_snapshots()?
                .iter()
                .map(description)
                .collect(),
        })),
        "DeleteSnapshot" => {
            let request: pb::DeleteSnapshotRequest = call.param()?;
            service.admin().delete_snapshot(&request.snapshot.name)?;
            Ok(Reply::message(&pb::DeleteSnapshotResponse {}))
        }
        "RestoreSnapshot" => restore_or_clone(ctx, call.param()?),
        other => Err(RemoteException::invalid(format!(
            "MasterService.{other} is not a snapshot call"
        ))),
    }
}

/// HBase's client sends restores and clones alike: the snapshot and a table. A table that
/// exists is restored (it must be disabled and be the snapshot's table); one that does not
/// is created from the snapshot.
fn restore_or_clone(ctx: &Context, request: pb::RestoreSnapshotRequest) -> CallResult {
    let snapshot = request.snapshot;
    let found = find(ctx, &snapshot.name)?;
    let table = snapshot_table(&snapshot)?.unwrap_or_else(|| found.table.clone());
    if ctx.service.admin().list_tables().contains(&table) {
        if table != found.table {
            return Err(RemoteException::invalid(format!(
                "snapshot {} is of table {}, not {}: restore it to its own table, or clone it \
                 to a new one",
                found.name,
                table_string(&found.table),
                table_string(&table)
            )));
        }
        ctx.service.admin().restore_snapshot(&found.name)?;
    } else {
        ctx.service.admin().clone_snapshot(&found.name, &table)?;
    }
    Ok(Reply::message(&pb::RestoreSnapshotResponse {
        proc_id: ctx.next_procedure(),
    }))
}

fn find(ctx: &Context, name: &str) -> Result<SnapshotInfo, RemoteException> {
    ctx.service
        .admin()
        .list_snapshots()?
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| strata_server::ServiceError::SnapshotNotFound(name.to_string()).into())
}

fn snapshot_table(
    snapshot: &pb::SnapshotDescription,
) -> Result<Option<TableName>, RemoteException> {
    match snapshot.table.as_deref() {
        None | Some("") => Ok(None),
        Some(text) => parse_table(text)
            .map(Some)
            .ok_or_else(|| RemoteException::invalid(format!("bad table name {text:?}"))),
    }
}

fn description(info: &SnapshotInfo) -> pb::SnapshotDescription {
    pb::SnapshotDescription {
        name: info.name.clone(),
        table: Some(table_string(&info.table)),
        creation_time: Some(info.created_at_ms),
        r#type: Some(pb::snapshot_description::Type::Flush as i32),
        version: Some(2),
        owner: None,
        ttl: None,
        max_file_size: None,
    }
}
