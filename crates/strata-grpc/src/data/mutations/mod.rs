//! Bigtable mutations (SetCell, DeleteFromColumn, DeleteFromFamily, DeleteFromRow) as
//! Strata cells.
//!
//! Puts are plain HBase puts (-1 is the server's time). Deletes remove exactly the versions
//! that exist when the mutation runs, as in Bigtable: the row is read under its lock and
//! each version found gets an exact-version delete marker. (HBase's own column and family
//! markers at the current time would also mask writes that arrive later with older or equal
//! timestamps; Bigtable never does that.) Mutations apply in request order, so a SetCell
//! after a delete in the same request survives it, and one before it does not.

use std::collections::BTreeSet;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use strata_engine::{Cell, CellType, Get, RowResult, TimeRange, LATEST_TIMESTAMP};
use tonic::Status;

use super::cells;

/// One checked mutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `timestamp` is in milliseconds, or `LATEST_TIMESTAMP` for the server's time.
    Put {
        family: Bytes,
        qualifier: Bytes,
        timestamp: i64,
        value: Bytes,
    },
    /// Versions of one column in a millisecond range.
    DeleteColumn {
        family: Bytes,
        qualifier: Bytes,
        range: TimeRange,
    },
    DeleteFamily {
        family: Bytes,
    },
    DeleteRow,
}

impl Op {
    fn family(&self) -> Option<&Bytes> {
        match self {
            Op::Put { family, .. }
            | Op::DeleteColumn { family, .. }
            | Op::DeleteFamily { family } => Some(family),
            Op::DeleteRow => None,
        }
    }

    /// True if the op removes the cell at (family, qualifier, timestamp).
    fn deletes(&self, family: &[u8], qualifier: &[u8], timestamp: i64) -> bool {
        match self {
            Op::Put { .. } => false,
            Op::DeleteColumn {
                family: f,
                qualifier: q,
                range,
            } => f == family && q == qualifier && range.contains(timestamp),
            Op::DeleteFamily { family: f } => f == family,
            Op::DeleteRow => true,
        }
    }
}

/// Checks and converts `mutations` (the request field `field`, e.g. `mutations` or
/// `true_mutations`); families must be among `families` of `table` (an unknown one is
/// NOT_FOUND, which clients do not retry).
pub fn parse(
    field: &str,
    mutations: &[pb::Mutation],
    families: &[Bytes],
    table: &str,
) -> Result<Vec<Op>, Status> {
    let ops = mutations
        .iter()
        .enumerate()
        .map(|(i, m)| parse_one(&format!("{field}[{i}]"), m))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, op) in ops.iter().enumerate() {
        if let Some(family) = op.family().filter(|f| !families.contains(f)) {
            return Err(Status::not_found(format!(
                "{field}[{i}]: column family {:?} does not exist in table {table}",
                String::from_utf8_lossy(family)
            )));
        }
    }
    Ok(ops)
}

fn parse_one(field: &str, mutation: &pb::Mutation) -> Result<Op, Status> {
    use pb::mutation::Mutation as M;
    Ok(match &mutation.mutation {
        Some(M::SetCell(set)) => {
            let field = format!("{field}.set_cell");
            Op::Put {
                family: cells::family_bytes(&field, &set.family_name)?,
                qualifier: set.column_qualifier.clone(),
                timestamp: cells::set_cell_millis(
                    &format!("{field}.timestamp_micros"),
                    set.timestamp_micros,
                )?,
                value: set.value.clone(),
            }
        }
        Some(M::DeleteFromColumn(delete)) => {
            let field = format!("{field}.delete_from_column");
            Op::DeleteColumn {
                family: cells::family_bytes(&field, &delete.family_name)?,
                qualifier: delete.column_qualifier.clone(),
                range: time_range(&format!("{field}.time_range"), delete.time_range.as_ref())?,
            }
        }
        Some(M::DeleteFromFamily(delete)) => Op::DeleteFamily {
            family: cells::family_bytes(
                &format!("{field}.delete_from_family"),
                &delete.family_name,
            )?,
        },
        Some(M::DeleteFromRow(_)) => Op::DeleteRow,
        Some(M::AddToCell(_) | M::MergeToCell(_)) => {
            return Err(Status::unimplemented(format!(
                "{field}: aggregate mutations (add_to_cell, merge_to_cell) are not supported"
            )))
        }
        None => {
            return Err(Status::invalid_argument(format!(
                "{field}: the mutation is empty"
            )))
        }
    })
}

/// A Bigtable TimestampRange (microseconds; 0 ends are unbounded) in milliseconds.
fn time_range(field: &str, range: Option<&pb::TimestampRange>) -> Result<TimeRange, Status> {
    let Some(range) = range else {
        return Ok(TimeRange::ALL);
    };
    let (start, end) = (range.start_timestamp_micros, range.end_timestamp_micros);
    if start < 0 || end < 0 || (end != 0 && end < start) {
        return Err(Status::invalid_argument(format!(
            "{field}: [{start}, {end}) is not a valid timestamp range"
        )));
    }
    let max = if end == 0 {
        i64::MAX
    } else {
        cells::bound_millis(end)
    };
    Ok(TimeRange::new(cells::bound_millis(start), max))
}

/// True if the ops are all puts, which need no read of the row.
pub fn only_puts(ops: &[Op]) -> bool {
    ops.iter().all(|op| matches!(op, Op::Put { .. }))
}

/// The cells of put-only `ops` (server timestamps are left to the engine).
pub fn put_cells(row: &Bytes, ops: &[Op]) -> Vec<Cell> {
    ops.iter()
        .filter_map(|op| match op {
            Op::Put {
                family,
                qualifier,
                timestamp,
                value,
            } => Some(Cell::put(
                row.clone(),
                family.clone(),
                qualifier.clone(),
                *timestamp,
                value.clone(),
            )),
            _ => None,
        })
        .collect()
}

/// The read that `apply` needs: every version of what the deletes touch.
pub fn read_for(row: &Bytes, ops: &[Op]) -> Get {
    let mut get = Get::new(row.clone()).versions(u32::MAX);
    if ops.iter().any(|op| matches!(op, Op::DeleteRow)) {
        return get; // every family
    }
    for op in ops {
        get = match op {
            Op::DeleteColumn {
                family, qualifier, ..
            } => get.column(family.clone(), qualifier.clone()),
            Op::DeleteFamily { family } => get.family(family.clone()),
            Op::Put { .. } | Op::DeleteRow => get,
        };
    }
    get
}

/// The cells that apply `ops` in order to `current` (the row as `read_for` read it) at
/// server time `now_millis`: exact delete markers for the versions deleted, then the puts
/// that survive the deletes after them.
pub fn apply(row: &Bytes, ops: &[Op], current: Option<RowResult>, now_millis: i64) -> Vec<Cell> {
    let existing: Vec<Cell> = current.map(|r| r.cells).unwrap_or_default();
    let mut deleted: BTreeSet<usize> = BTreeSet::new();
    let mut puts: Vec<Cell> = Vec::new();
    for op in ops {
        match op {
            Op::Put {
                family,
                qualifier,
                timestamp,
                value,
            } => {
                let ts = if *timestamp == LATEST_TIMESTAMP {
                    now_millis
                } else {
                    *timestamp
                };
                puts.retain(|p| !same_coordinates(p, family, qualifier, ts));
                puts.push(Cell::put(
                    row.clone(),
                    family.clone(),
                    qualifier.clone(),
                    ts,
                    value.clone(),
                ));
            }
            delete => {
                puts.retain(|p| !delete.deletes(&p.family, &p.qualifier, p.timestamp));
                for (i, cell) in existing.iter().enumerate() {
                    if delete.deletes(&cell.family, &cell.qualifier, cell.timestamp) {
                        deleted.insert(i);
                    }
                }
            }
        }
    }
    // A version deleted and then written again is simply replaced by the later put (a
    // marker would mask the put too).
    let mut cells: Vec<Cell> = deleted
        .into_iter()
        .map(|i| &existing[i])
        .filter(|c| {
            !puts
                .iter()
                .any(|p| same_coordinates(p, &c.family, &c.qualifier, c.timestamp))
        })
        .map(|c| {
            Cell::delete(
                row.clone(),
                c.family.clone(),
                c.qualifier.clone(),
                c.timestamp,
                CellType::Delete,
            )
        })
        .collect();
    cells.extend(puts);
    cells
}

fn same_coordinates(cell: &Cell, family: &[u8], qualifier: &[u8], ts: i64) -> bool {
    cell.family == family && cell.qualifier == qualifier && cell.timestamp == ts
}

#[cfg(test)]
mod tests;
