//! Reading the visible cells of one row from one store's merged sources.

use bytes::Bytes;

use super::matcher::{Decision, RowMatcher};
use crate::cell::Cell;
use crate::error::{Error, Result};
use crate::iter::KvIter;
use crate::key;

/// How many `next` calls to try before paying for a seek when skipping a column: a seek
/// re-positions every source, so stepping over a few cells is cheaper.
const NEXTS_BEFORE_SEEK: usize = 8;

/// Reads row `row` (whose escaped prefix is `row_prefix`) from `iter`, which must be
/// positioned at or before the row's first key. Leaves `iter` at the first key after the row.
pub fn read_row(
    iter: &mut dyn KvIter,
    matcher: &mut RowMatcher,
    row: &Bytes,
    row_prefix: &[u8],
    family: &Bytes,
    out: &mut Vec<Cell>,
) -> Result<()> {
    matcher.start_row(row_prefix.len());
    while iter.valid() && iter.key().starts_with(row_prefix) {
        match matcher.decide(iter.key()) {
            Decision::Include => {
                out.push(decode_cell(iter.key(), iter.value_bytes(), row, family)?);
                iter.next()?;
            }
            Decision::Skip => iter.next()?,
            Decision::SkipColumn => skip_column(iter, matcher, row_prefix)?,
        }
    }
    Ok(())
}

/// Moves past the current column: to the next selected column if the read selects columns,
/// else to the end of this column.
fn skip_column(iter: &mut dyn KvIter, matcher: &RowMatcher, row_prefix: &[u8]) -> Result<()> {
    let Some(column) = key::column_prefix_of(iter.key()).map(<[u8]>::to_vec) else {
        return iter.next();
    };
    for _ in 0..NEXTS_BEFORE_SEEK {
        iter.next()?;
        if !iter.valid() || !iter.key().starts_with(&column) {
            return Ok(());
        }
    }
    let target = next_column_target(&column, matcher, row_prefix);
    iter.seek_forward(&target)
}

fn next_column_target(column: &[u8], matcher: &RowMatcher, row_prefix: &[u8]) -> Vec<u8> {
    let mut column_end = column.to_vec();
    if let Some(last) = column_end.last_mut() {
        *last += 1; // the terminator 01 becomes 02: past every key of the column
    }
    let Some(selected) = &matcher.params().columns else {
        return column_end;
    };
    let current = column.get(row_prefix.len()..).unwrap_or(&[]);
    match selected
        .range::<[u8], _>((
            std::ops::Bound::Excluded(current),
            std::ops::Bound::Unbounded,
        ))
        .next()
    {
        Some(next) => [row_prefix, next.as_slice()].concat(),
        None => {
            let mut end = row_prefix.to_vec();
            if let Some(last) = end.last_mut() {
                *last += 1;
            }
            end
        }
    }
}

/// Builds a [`Cell`] from an internal key and value; the row is known, so only the
/// qualifier and suffix are decoded.
pub fn decode_cell(key: &[u8], value: Bytes, row: &Bytes, family: &Bytes) -> Result<Cell> {
    let parsed = key::parse_key(key)
        .ok_or_else(|| Error::corruption("<merged read>", 0, "malformed internal key"))?;
    Ok(Cell {
        row: row.clone(),
        family: family.clone(),
        qualifier: Bytes::from(parsed.qualifier),
        timestamp: parsed.timestamp,
        cell_type: parsed.cell_type,
        seq: parsed.seq,
        value,
    })
}
