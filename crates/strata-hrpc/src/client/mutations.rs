//! A MutationProto as Strata cells. Cells come either inside the message (a single Put or
//! Delete) or from the call's cell block (Multi), counted by `associated_cell_count`.

use bytes::Bytes;
use strata_engine::{Cell, CellType, LATEST_TIMESTAMP};
use strata_server::durability::WriteDurability;
use strata_server::names::TableName;

use crate::call::Call;
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::pb::mutation_proto::{DeleteType, Durability, MutationType};

/// A decoded mutation of one row.
#[derive(Debug)]
pub struct Mutation {
    pub kind: MutationType,
    pub row: Bytes,
    /// Put and delete cells, or for Increment the amounts and for Append the suffixes as
    /// put cells' values.
    pub cells: Vec<Cell>,
    pub durability: WriteDurability,
    /// Whether the client wants the new cells back (Increment and Append).
    pub return_results: bool,
}

/// Decodes `m`, taking its cells from `block` when they travel there. A Delete with no
/// cells becomes a delete of every family of the row.
pub fn decode(
    ctx: &Context,
    call: &Call,
    table: &TableName,
    m: &pb::MutationProto,
    block: &mut Bytes,
) -> Result<Mutation, RemoteException> {
    let mut mutation = decode_cells(call, m, block)?;
    if mutation.kind == MutationType::Delete && mutation.cells.is_empty() {
        mutation.cells = whole_row_delete(ctx, table, &mutation.row, default_ts(m)?)?;
    }
    Ok(mutation)
}

fn default_ts(m: &pb::MutationProto) -> Result<i64, RemoteException> {
    Ok(m.timestamp
        .map(to_ts)
        .transpose()?
        .unwrap_or(LATEST_TIMESTAMP))
}

/// Decodes `m` from its own bytes and `block` alone (what [`decode`] does before it looks
/// at the table): a Delete with no cells stays without cells. Every cell has the
/// mutation's row; exactly `associated_cell_count` cells are taken from `block`.
pub fn decode_cells(
    call: &Call,
    m: &pb::MutationProto,
    block: &mut Bytes,
) -> Result<Mutation, RemoteException> {
    let kind = m.mutate_type();
    let mut cells = inline_cells(m, kind, default_ts(m)?)?;
    let carried = usize::try_from(m.associated_cell_count()).unwrap_or(0);
    if carried > 0 {
        cells.extend(call.take_cells(block, carried)?);
    }
    let row = match (&m.row, cells.first()) {
        (Some(row), _) => row.clone(),
        (None, Some(cell)) => cell.row.clone(),
        (None, None) => return Err(RemoteException::invalid("a mutation names no row")),
    };
    if let Some(other) = cells.iter().find(|c| c.row != row) {
        return Err(RemoteException::invalid(format!(
            "a mutation of row {:?} carries a cell of row {:?}",
            String::from_utf8_lossy(&row),
            String::from_utf8_lossy(&other.row)
        )));
    }
    Ok(Mutation {
        kind,
        row,
        cells,
        durability: durability(m.durability()),
        return_results: return_results(m),
    })
}

fn to_ts(ts: u64) -> Result<i64, RemoteException> {
    i64::try_from(ts)
        .map_err(|_| RemoteException::invalid(format!("timestamp {ts} is out of range")))
}

fn inline_cells(
    m: &pb::MutationProto,
    kind: MutationType,
    default_ts: i64,
) -> Result<Vec<Cell>, RemoteException> {
    let row = m.row.clone().unwrap_or_default();
    let mut cells = Vec::new();
    for column in &m.column_value {
        for qv in &column.qualifier_value {
            let ts = qv.timestamp.map(to_ts).transpose()?.unwrap_or(default_ts);
            let cell_type = match kind {
                MutationType::Delete => delete_type(qv.delete_type()),
                _ => CellType::Put,
            };
            cells.push(Cell {
                row: row.clone(),
                family: column.family.clone(),
                qualifier: qv.qualifier.clone().unwrap_or_default(),
                timestamp: ts,
                cell_type,
                seq: 0,
                value: qv.value.clone().unwrap_or_default(),
            });
        }
    }
    Ok(cells)
}

fn delete_type(t: DeleteType) -> CellType {
    match t {
        DeleteType::DeleteOneVersion => CellType::Delete,
        DeleteType::DeleteMultipleVersions => CellType::DeleteColumn,
        DeleteType::DeleteFamily => CellType::DeleteFamily,
        DeleteType::DeleteFamilyVersion => CellType::DeleteFamilyVersion,
    }
}

/// `new Delete(row)` with no columns: every family of the row at or below `ts`.
fn whole_row_delete(
    ctx: &Context,
    table: &TableName,
    row: &Bytes,
    ts: i64,
) -> Result<Vec<Cell>, RemoteException> {
    let descriptor = ctx.service.admin().describe_table(table)?;
    Ok(descriptor
        .families
        .into_iter()
        .map(|f| {
            Cell::delete(
                row.clone(),
                Bytes::from(f.name),
                Bytes::new(),
                ts,
                CellType::DeleteFamily,
            )
        })
        .collect())
}

fn durability(d: Durability) -> WriteDurability {
    match d {
        Durability::UseDefault => WriteDurability::UseDefault,
        Durability::SkipWal => WriteDurability::SkipWal,
        Durability::AsyncWal => WriteDurability::AsyncWal,
        Durability::SyncWal => WriteDurability::SyncWal,
        Durability::FsyncWal => WriteDurability::FsyncWal,
    }
}

/// HBase's client sets attribute `_rr_` to false when it does not need the new values
/// (`Increment.setReturnResults(false)`).
fn return_results(m: &pb::MutationProto) -> bool {
    !m.attribute
        .iter()
        .any(|a| a.name == "_rr_" && a.value.as_deref() == Some(&[0u8][..]))
}

/// True when some cell is a single-version delete at LATEST_TIMESTAMP, which HBase turns
/// into a delete of the column's newest version.
pub fn deletes_latest(cells: &[Cell]) -> bool {
    cells
        .iter()
        .any(|c| c.cell_type == CellType::Delete && c.timestamp == LATEST_TIMESTAMP)
}
