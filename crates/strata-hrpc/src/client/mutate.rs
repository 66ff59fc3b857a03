//! ClientService.Mutate: one Put, Delete, Increment or Append, optionally under a
//! condition (checkAndMutate).

use bytes::Bytes;
use strata_engine::{Cell, Get};
use strata_server::durability::WriteDurability;
use strata_server::names::TableName;
use strata_server::Check;

use super::cell_blocks::ResponseCells;
use super::check_filter;
use super::mutations::{self, Mutation};
use super::regions;
use crate::call::{Call, CallResult};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::pb::mutation_proto::MutationType;
use crate::results;

/// Serves Mutate.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    let request: pb::MutateRequest = call.param()?;
    let (table, _) = regions::resolve_region(ctx, Some(&request.region))?;
    let mut block = call.cells.clone();
    let mutation = mutations::decode(ctx, call, &table, &request.mutation, &mut block)?;
    let mut response = match &request.condition {
        Some(condition) => pb::MutateResponse {
            result: None,
            processed: Some(check_and_apply(ctx, &table, condition, mutation)?),
        },
        None => pb::MutateResponse {
            result: apply(ctx, &table, mutation)?,
            processed: Some(true),
        },
    };
    let mut cells = ResponseCells::for_call(call);
    if let Some(result) = response.result.as_mut() {
        cells.take(result);
    }
    Ok(cells.reply(&response))
}

/// Applies one mutation; Increment and Append return their new cells.
pub fn apply(
    ctx: &Context,
    table: &TableName,
    mutation: Mutation,
) -> Result<Option<pb::Result>, RemoteException> {
    match mutation.kind {
        MutationType::Put | MutationType::Delete => {
            write(
                ctx,
                table,
                &mutation.row,
                mutation.cells,
                mutation.durability,
            )?;
            Ok(None)
        }
        MutationType::Increment => {
            let cells = increment(ctx, table, &mutation)?;
            Ok(mutation
                .return_results
                .then(|| results::cells_result(&cells)))
        }
        MutationType::Append => {
            let columns: Vec<(Bytes, Bytes, Bytes)> = mutation
                .cells
                .iter()
                .map(|c| (c.family.clone(), c.qualifier.clone(), c.value.clone()))
                .collect();
            let cells = ctx.service.rows().append(table, &mutation.row, &columns)?;
            Ok(mutation
                .return_results
                .then(|| results::cells_result(&cells)))
        }
    }
}

/// Writes put and delete cells of one row atomically.
pub fn write(
    ctx: &Context,
    table: &TableName,
    row: &[u8],
    cells: Vec<Cell>,
    durability: WriteDurability,
) -> Result<(), RemoteException> {
    if mutations::deletes_latest(&cells) {
        ctx.service
            .rows()
            .mutate_row_resolving_latest(table, row, cells, durability)?;
    } else {
        ctx.service.rows().mutate(table, cells, durability)?;
    }
    Ok(())
}

/// Adds each amount to its counter in one atomic row change, as HBase's Increment does
/// (a missing counter counts as 0; the new version's timestamp is max(now, previous + 1)).
fn increment(ctx: &Context, table: &TableName, m: &Mutation) -> Result<Vec<Cell>, RemoteException> {
    let mut amounts = Vec::with_capacity(m.cells.len());
    for c in &m.cells {
        let amount: [u8; 8] = c.value[..].try_into().map_err(|_| {
            RemoteException::invalid(format!(
                "increment amount for {}:{} is {} bytes, not 8",
                String::from_utf8_lossy(&c.family),
                String::from_utf8_lossy(&c.qualifier),
                c.value.len()
            ))
        })?;
        amounts.push((
            c.family.clone(),
            c.qualifier.clone(),
            i64::from_be_bytes(amount),
        ));
    }
    if amounts.len() == 1 {
        let (family, qualifier, amount) = &amounts[0];
        let value = ctx
            .service
            .rows()
            .increment(table, &m.row, family, qualifier, *amount)?;
        return Ok(vec![Cell::put(
            m.row.clone(),
            family.clone(),
            qualifier.clone(),
            0,
            value.to_be_bytes().to_vec(),
        )]);
    }
    let mut read = Get::new(m.row.clone());
    for (family, qualifier, _) in &amounts {
        read = read.column(family.clone(), qualifier.clone());
    }
    let row = m.row.clone();
    Ok(ctx
        .service
        .rows()
        .read_modify_write_row(table, &read, |current, now| {
            let cells = added_counters(&row, &amounts, current.as_ref(), now)?;
            Ok((cells.clone(), cells))
        })?)
}

fn added_counters(
    row: &Bytes,
    amounts: &[(Bytes, Bytes, i64)],
    current: Option<&strata_engine::RowResult>,
    now: i64,
) -> strata_server::Result<Vec<Cell>> {
    let mut cells = Vec::with_capacity(amounts.len());
    for (family, qualifier, amount) in amounts {
        let newest = current.and_then(|r| {
            r.cells
                .iter()
                .find(|c| c.family == family && c.qualifier == qualifier)
        });
        let (value, ts) = match newest {
            None => (0i64, now),
            Some(c) => {
                let bytes: [u8; 8] = c.value[..].try_into().map_err(|_| {
                    strata_server::ServiceError::IncompatibleValue(format!(
                        "field is not 64 bits wide: the current value has {} bytes",
                        c.value.len()
                    ))
                })?;
                (
                    i64::from_be_bytes(bytes),
                    now.max(c.timestamp.saturating_add(1)),
                )
            }
        };
        let sum = value.wrapping_add(*amount).to_be_bytes().to_vec();
        cells.push(Cell::put(
            row.clone(),
            family.clone(),
            qualifier.clone(),
            ts,
            sum,
        ));
    }
    Ok(cells)
}

/// checkAndMutate: applies `mutation` if the condition holds; returns whether it did.
pub fn check_and_apply(
    ctx: &Context,
    table: &TableName,
    condition: &pb::Condition,
    mutation: Mutation,
) -> Result<bool, RemoteException> {
    if !matches!(mutation.kind, MutationType::Put | MutationType::Delete) {
        return Err(RemoteException::invalid(
            "checkAndMutate with Increment or Append is not supported by Strata yet",
        ));
    }
    check_and_write(
        ctx,
        table,
        condition,
        &mutation.row,
        mutation.cells,
        mutation.durability,
    )
}

/// Writes `cells` (all on `row`) if `condition` holds; returns whether it did.
pub fn check_and_write(
    ctx: &Context,
    table: &TableName,
    condition: &pb::Condition,
    row: &[u8],
    cells: Vec<Cell>,
    durability: WriteDurability,
) -> Result<bool, RemoteException> {
    if condition.row != row {
        return Err(RemoteException::invalid(
            "the condition and the mutation are on different rows",
        ));
    }
    if let Some(filter) = &condition.filter {
        // Written at the table's durability (HBase's read-modify-write does the same).
        return check_filter::apply_if_row_passes(ctx, table, condition, filter, cells);
    }
    let check = check(condition)?;
    Ok(ctx
        .service
        .rows()
        .check_and_mutate(table, &check, cells, durability)?)
}

/// A condition in the form the service checks: one column against a binary value, or its
/// absence.
pub fn check(condition: &pb::Condition) -> Result<Check, RemoteException> {
    // The 2.x client always sends a time range; only one narrower than all time matters.
    let all_time = condition
        .time_range
        .as_ref()
        .is_none_or(|r| super::reads::time_range(Some(r)).is_ok_and(|r| r.is_all()));
    if !all_time {
        return Err(RemoteException::invalid(
            "checkAndMutate of a column within a time range is not supported by Strata yet \
             (a filter condition with a time range is)",
        ));
    }
    let comparator = condition
        .comparator
        .as_ref()
        .ok_or_else(|| RemoteException::invalid("the condition has no comparator"))?;
    let value = match comparator.name.as_str() {
        "org.apache.hadoop.hbase.filter.NullComparator" => None,
        // HBase reads an empty comparand as "the column has no value" (ifNotExists).
        "org.apache.hadoop.hbase.filter.BinaryComparator" => {
            let value = super::filters::comparator(comparator)?.value().clone();
            (!value.is_empty()).then_some(value)
        }
        other => {
            return Err(RemoteException::invalid(format!(
                "checkAndMutate with comparator {other} is not supported by Strata yet"
            )))
        }
    };
    Ok(Check {
        row: condition.row.clone(),
        family: condition.family.clone().unwrap_or_default(),
        qualifier: condition.qualifier.clone().unwrap_or_default(),
        op: super::filters::op(condition.compare_type())?,
        value,
    })
}
