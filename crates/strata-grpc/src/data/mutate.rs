//! MutateRow and MutateRows. Each row's mutations are atomic; MutateRows reports a status
//! per entry, so one bad entry never fails the others.

use std::sync::Arc;
use strata_server::Dialect;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use googleapis_tonic_google_rpc::google::rpc;
use strata_server::{Service, TableName, WriteDurability};
use tonic::Status;

use super::mutations::{self, Op};
use super::Target;
use crate::blocking::run;

/// MutateRow: the mutations of one row, atomically.
pub async fn mutate_row(
    service: Arc<Service>,
    request: pb::MutateRowRequest,
) -> Result<pb::MutateRowResponse, Status> {
    let target = Target::resolve(&service, &request.table_name)?;
    let (row, ops) = checked_row(&target, "", &request.row_key, &request.mutations)?;
    run(move || apply_row(&service, &target.table, &row, &ops)).await?;
    Ok(pb::MutateRowResponse {})
}

/// MutateRows: every entry is applied (each atomically) and answered with its own status.
pub async fn mutate_rows(
    service: Arc<Service>,
    request: pb::MutateRowsRequest,
) -> Result<pb::MutateRowsResponse, Status> {
    let target = Target::resolve(&service, &request.table_name)?;
    if request.entries.is_empty() {
        return Err(Status::invalid_argument("entries: must not be empty"));
    }
    let entries = request.entries;
    let statuses = run(move || Ok(apply_entries(&service, &target, &entries))).await?;
    let entries = statuses
        .into_iter()
        .enumerate()
        .map(|(index, status)| pb::mutate_rows_response::Entry {
            index: index as i64,
            status: Some(status),
        })
        .collect();
    Ok(pb::MutateRowsResponse {
        entries,
        rate_limit_info: None,
    })
}

/// Checks a row key and its mutations; `prefix` is the request path of the entry (empty for
/// MutateRow, `entries[3].` for MutateRows).
pub(super) fn checked_row(
    target: &Target,
    prefix: &str,
    row_key: &Bytes,
    mutations: &[pb::Mutation],
) -> Result<(Bytes, Vec<Op>), Status> {
    let row = super::checked_row_key(&format!("{prefix}row_key"), row_key)?;
    let field = format!("{prefix}mutations");
    if mutations.is_empty() {
        return Err(Status::invalid_argument(format!(
            "{field}: must not be empty"
        )));
    }
    let ops = mutations::parse(&field, mutations, &target.families, &target.display())?;
    Ok((row, ops))
}

/// Applies one row's ops atomically: puts alone are a plain write; deletes need the row.
pub(super) fn apply_row(
    service: &Service,
    table: &TableName,
    row: &Bytes,
    ops: &[Op],
) -> Result<(), Status> {
    let result = if mutations::only_puts(ops) {
        service.rows().mutate_in(
            Dialect::Bigtable,
            table,
            mutations::put_cells(row, ops),
            WriteDurability::UseDefault,
        )
    } else {
        let read = mutations::read_for(row, ops);
        service
            .rows()
            .read_modify_write_row_in(Dialect::Bigtable, table, &read, |current, now| {
                Ok((mutations::apply(row, ops, current, now), ()))
            })
    };
    result.map_err(crate::error::status)
}

fn ok() -> rpc::Status {
    rpc::Status {
        code: tonic::Code::Ok as i32,
        ..Default::default()
    }
}

fn to_rpc(status: &Status) -> rpc::Status {
    rpc::Status {
        code: status.code() as i32,
        message: status.message().to_string(),
        details: Vec::new(),
    }
}

/// Puts-only entries go to the engine in one write (each region's share is atomic, so each
/// row still is); entries with deletes are read-modify-writes of their own.
fn apply_entries(
    service: &Service,
    target: &Target,
    entries: &[pb::mutate_rows_request::Entry],
) -> Vec<rpc::Status> {
    let mut statuses = vec![ok(); entries.len()];
    let mut batch = Vec::new();
    let mut batched = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let prefix = format!("entries[{i}].");
        match checked_row(target, &prefix, &entry.row_key, &entry.mutations) {
            Err(status) => statuses[i] = to_rpc(&status),
            Ok((row, ops)) if mutations::only_puts(&ops) => {
                batch.extend(mutations::put_cells(&row, &ops));
                batched.push(i);
            }
            Ok((row, ops)) => {
                if let Err(status) = apply_row(service, &target.table, &row, &ops) {
                    statuses[i] = to_rpc(&status);
                }
            }
        }
    }
    if !batch.is_empty() {
        if let Err(e) = service.rows().mutate_in(
            Dialect::Bigtable,
            &target.table,
            batch,
            WriteDurability::UseDefault,
        ) {
            let status = to_rpc(&crate::error::status(e));
            for i in batched {
                statuses[i] = status.clone();
            }
        }
    }
    statuses
}
