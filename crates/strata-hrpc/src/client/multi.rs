//! ClientService.Multi: batches of gets and mutations grouped by region (what
//! `Table.batch`, `Table.put(List)` and `BufferedMutator` send), and atomic row mutations
//! (`mutateRow`, `checkAndMutate` with `RowMutations`).
//!
//! Runs of plain puts and deletes are written with one `mutate_each_row` call, so each row
//! stays atomic and a batch costs one trip through the write path; a get, an increment or
//! an append first flushes the run before it, so a batch sees its own earlier writes.

use bytes::Bytes;
use strata_engine::Cell;
use strata_server::names::TableName;

use super::cell_blocks::ResponseCells;
use super::mutate;
use super::mutations::{self, Mutation};
use super::regions;
use crate::call::{Call, CallResult};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::pb::mutation_proto::MutationType;

/// Serves Multi.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    let request: pb::MultiRequest = call.param()?;
    let mut block = call.cells.clone();
    let mut results = Vec::with_capacity(request.region_action.len());
    for action in &request.region_action {
        results.push(region_action(ctx, call, action, &mut block));
    }
    // The client reads the results' cells in the order the results are listed.
    let mut cells = ResponseCells::for_call(call);
    for result in results
        .iter_mut()
        .flat_map(|r| r.result_or_exception.iter_mut())
        .filter_map(|r| r.result.as_mut())
    {
        cells.take(result);
    }
    Ok(cells.reply(&pb::MultiResponse {
        region_action_result: results,
        processed: None,
    }))
}

fn failed(e: RemoteException) -> pb::RegionActionResult {
    tracing::debug!(class = e.class, "region action failed: {}", e.message);
    pb::RegionActionResult {
        exception: Some(e.to_name_bytes()),
        ..Default::default()
    }
}

fn region_action(
    ctx: &Context,
    call: &Call,
    action: &pb::RegionAction,
    block: &mut Bytes,
) -> pb::RegionActionResult {
    // Cells of every action travel in one block, in order: decode them all even when
    // the region is gone, so the next region action reads its own cells.
    let table = regions::resolve_region(ctx, Some(&action.region)).map(|(t, _)| t);
    let decoded = decode_actions(ctx, call, action, table.as_ref().ok(), block);
    let table = match table {
        Ok(table) => table,
        Err(e) => return failed(e),
    };
    let decoded = match decoded {
        Ok(decoded) => decoded,
        Err(e) => return failed(e),
    };
    if action.atomic() || action.condition.is_some() {
        // The client wants one (empty) result per action, numbered by position, and the
        // outcome in `processed`.
        let indexes: Vec<u32> = (0..decoded.len() as u32).collect();
        return match atomic(ctx, &table, action.condition.as_ref(), decoded) {
            Ok(processed) => pb::RegionActionResult {
                result_or_exception: indexes
                    .into_iter()
                    .map(|i| answer(i, Ok(pb::Result::default())))
                    .collect(),
                exception: None,
                processed: Some(processed),
            },
            Err(e) => failed(e),
        };
    }
    pb::RegionActionResult {
        result_or_exception: each(ctx, &table, decoded),
        ..Default::default()
    }
}

enum Decoded {
    Get(u32, pb::Get),
    Mutation(u32, Mutation),
}

fn decode_actions(
    ctx: &Context,
    call: &Call,
    action: &pb::RegionAction,
    table: Option<&TableName>,
    block: &mut Bytes,
) -> Result<Vec<Decoded>, RemoteException> {
    let mut decoded = Vec::with_capacity(action.action.len());
    for (position, a) in action.action.iter().enumerate() {
        // An action without an index is answered under its position, as HBase does.
        let index = a.index.unwrap_or(position as u32);
        if let Some(get) = &a.get {
            decoded.push(Decoded::Get(index, get.clone()));
        } else if let Some(m) = &a.mutation {
            let Some(table) = table else {
                // Skip this mutation's cells so later region actions stay aligned.
                let carried = usize::try_from(m.associated_cell_count()).unwrap_or(0);
                call.take_cells(block, carried)?;
                continue;
            };
            decoded.push(Decoded::Mutation(
                index,
                mutations::decode(ctx, call, table, m, block)?,
            ));
        } else {
            return Err(RemoteException::invalid(
                "coprocessor calls in Multi are not supported by Strata",
            ));
        }
    }
    Ok(decoded)
}

/// All mutations of one row, atomically, under `condition` if there is one.
fn atomic(
    ctx: &Context,
    table: &TableName,
    condition: Option<&pb::Condition>,
    actions: Vec<Decoded>,
) -> Result<bool, RemoteException> {
    let mut row: Option<Bytes> = None;
    let mut cells: Vec<Cell> = Vec::new();
    let mut durability = Default::default();
    for action in actions {
        let Decoded::Mutation(_, m) = action else {
            return Err(RemoteException::invalid(
                "an atomic row mutation cannot hold a get",
            ));
        };
        if !matches!(m.kind, MutationType::Put | MutationType::Delete) {
            return Err(RemoteException::invalid(
                "atomic row mutations with Increment or Append are not supported by Strata yet",
            ));
        }
        if row.as_ref().is_some_and(|r| *r != m.row) {
            return Err(RemoteException::invalid(
                "an atomic row mutation spans rows",
            ));
        }
        row = Some(m.row.clone());
        durability = m.durability;
        cells.extend(m.cells);
    }
    let Some(row) = row else {
        return Ok(true);
    };
    match condition {
        None => {
            mutate::write(ctx, table, &row, cells, durability)?;
            Ok(true)
        }
        Some(condition) => mutate::check_and_write(ctx, table, condition, &row, cells, durability),
    }
}

fn each(ctx: &Context, table: &TableName, actions: Vec<Decoded>) -> Vec<pb::ResultOrException> {
    let mut out = Vec::with_capacity(actions.len());
    let mut run: Vec<(u32, Mutation)> = Vec::new();
    for action in actions {
        match action {
            Decoded::Mutation(index, m) if batchable(&m) => run.push((index, m)),
            Decoded::Mutation(index, m) => {
                flush(ctx, table, &mut run, &mut out);
                out.push(answer(
                    index,
                    mutate::apply(ctx, table, m).map(|r| r.unwrap_or_default()),
                ));
            }
            Decoded::Get(index, get) => {
                flush(ctx, table, &mut run, &mut out);
                out.push(answer(index, super::get::get(ctx, table, &get)));
            }
        }
    }
    flush(ctx, table, &mut run, &mut out);
    out
}

fn batchable(m: &Mutation) -> bool {
    matches!(m.kind, MutationType::Put | MutationType::Delete)
        && !mutations::deletes_latest(&m.cells)
}

fn answer(index: u32, result: Result<pb::Result, RemoteException>) -> pb::ResultOrException {
    match result {
        Ok(result) => pb::ResultOrException {
            index: Some(index),
            result: Some(result),
            exception: None,
        },
        Err(e) => pb::ResultOrException {
            index: Some(index),
            result: None,
            exception: Some(e.to_name_bytes()),
        },
    }
}

fn flush(
    ctx: &Context,
    table: &TableName,
    run: &mut Vec<(u32, Mutation)>,
    out: &mut Vec<pb::ResultOrException>,
) {
    if run.is_empty() {
        return;
    }
    let batch = std::mem::take(run);
    let durability = batch[0].1.durability;
    let indexes: Vec<u32> = batch.iter().map(|(i, _)| *i).collect();
    let rows: Vec<Vec<Cell>> = batch.into_iter().map(|(_, m)| m.cells).collect();
    match ctx.service.rows().mutate_each_row(table, rows, durability) {
        Ok(outcomes) => {
            for (index, outcome) in indexes.into_iter().zip(outcomes) {
                out.push(answer(
                    index,
                    outcome.map(|()| pb::Result::default()).map_err(Into::into),
                ));
            }
        }
        Err(e) => {
            let e = RemoteException::from(e);
            for index in indexes {
                out.push(answer(index, Err(e.clone())));
            }
        }
    }
}
