//! ReadModifyWriteRow: append and increment rules applied in order, atomically. Rules on
//! the same column compound. Each changed column gets one new cell whose timestamp is
//! max(now, that column's newest timestamp): Bigtable's rule (HBase adds one millisecond to
//! the previous timestamp instead), so the new cell may replace the newest version.

use std::collections::BTreeMap;
use std::sync::Arc;
use strata_server::Dialect;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::read_modify_write_rule::Rule;
use strata_engine::{Cell, Get, RowResult};
use strata_server::{Service, ServiceError};
use tonic::Status;

use super::{cells, Target};
use crate::blocking::run;

/// One checked rule.
#[derive(Debug, Clone)]
pub struct Change {
    family: Bytes,
    qualifier: Bytes,
    rule: Rule,
}

type Column = (Bytes, Bytes);

pub async fn read_modify_write_row(
    service: Arc<Service>,
    request: pb::ReadModifyWriteRowRequest,
) -> Result<pb::ReadModifyWriteRowResponse, Status> {
    let target = Target::resolve(&service, &request.table_name)?;
    let row = super::checked_row_key("row_key", &request.row_key)?;
    let changes = parse(&target, &request.rules)?;
    let written = run(move || {
        let mut read = Get::new(row.clone());
        for c in &changes {
            read = read.column(c.family.clone(), c.qualifier.clone());
        }
        service
            .rows()
            .read_modify_write_row_in(Dialect::Bigtable, &target.table, &read, |current, now| {
                let cells = apply(&row, &changes, current, now)?;
                Ok((cells.clone(), cells))
            })
            .map_err(crate::error::status)
    })
    .await?;
    Ok(pb::ReadModifyWriteRowResponse {
        row: Some(row_of(request.row_key, written)),
    })
}

fn parse(target: &Target, rules: &[pb::ReadModifyWriteRule]) -> Result<Vec<Change>, Status> {
    if rules.is_empty() {
        return Err(Status::invalid_argument("rules: must not be empty"));
    }
    rules
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let field = format!("rules[{i}]");
            let family = cells::family_bytes(&field, &r.family_name)?;
            if !target.families.contains(&family) {
                return Err(Status::not_found(format!(
                    "{field}: column family {:?} does not exist in table {}",
                    r.family_name,
                    target.display()
                )));
            }
            let rule = r.rule.clone().ok_or_else(|| {
                Status::invalid_argument(format!(
                    "{field}: one of append_value or increment_amount is required"
                ))
            })?;
            Ok(Change {
                family,
                qualifier: r.column_qualifier.clone(),
                rule,
            })
        })
        .collect()
}

/// The new cells (one per changed column, in column order) for `changes` applied to the
/// newest versions in `current` at server time `now` (milliseconds).
pub fn apply(
    row: &Bytes,
    changes: &[Change],
    current: Option<RowResult>,
    now: i64,
) -> strata_server::Result<Vec<Cell>> {
    // Newest version per column (the read asked for one version).
    let mut columns: BTreeMap<Column, (Vec<u8>, i64)> = BTreeMap::new();
    let mut newest: BTreeMap<Column, (Bytes, i64)> = BTreeMap::new();
    for cell in current.map(|r| r.cells).unwrap_or_default() {
        newest
            .entry((cell.family, cell.qualifier))
            .or_insert((cell.value, cell.timestamp));
    }
    for change in changes {
        let key = (change.family.clone(), change.qualifier.clone());
        let (value, _) = columns.entry(key.clone()).or_insert_with(|| {
            newest
                .get(&key)
                .map_or((Vec::new(), i64::MIN), |(v, ts)| (v.to_vec(), *ts))
        });
        match &change.rule {
            Rule::AppendValue(suffix) => value.extend_from_slice(suffix),
            Rule::IncrementAmount(amount) => {
                let sum = counter(value)?.wrapping_add(*amount);
                *value = sum.to_be_bytes().to_vec();
            }
        }
    }
    Ok(columns
        .into_iter()
        .map(|((family, qualifier), (value, previous_ts))| {
            Cell::put(row.clone(), family, qualifier, now.max(previous_ts), value)
        })
        .collect())
}

/// A stored counter: 8 bytes big-endian; a missing or empty value counts as 0.
fn counter(value: &[u8]) -> strata_server::Result<i64> {
    if value.is_empty() {
        return Ok(0);
    }
    let bytes: [u8; 8] = value.try_into().map_err(|_| {
        ServiceError::IncompatibleValue(format!(
            "increment_amount: the current value has {} bytes; a counter is a 64-bit \
             big-endian integer",
            value.len()
        ))
    })?;
    Ok(i64::from_be_bytes(bytes))
}

/// The written cells as a Bigtable Row (families and columns in order, microseconds).
fn row_of(key: Bytes, cells: Vec<Cell>) -> pb::Row {
    let mut families: Vec<pb::Family> = Vec::new();
    for cell in cells {
        let name = String::from_utf8_lossy(&cell.family).into_owned();
        if families.last().is_none_or(|f| f.name != name) {
            families.push(pb::Family {
                name,
                columns: Vec::new(),
            });
        }
        let column = pb::Column {
            qualifier: cell.qualifier,
            cells: vec![pb::Cell {
                timestamp_micros: cells::micros(cell.timestamp),
                value: cell.value,
                labels: Vec::new(),
            }],
        };
        if let Some(family) = families.last_mut() {
            family.columns.push(column);
        }
    }
    pb::Row { key, families }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    fn change(q: &str, rule: Rule) -> Change {
        Change {
            family: b("cf"),
            qualifier: b(q),
            rule,
        }
    }

    fn stored(q: &str, ts: i64, value: &[u8]) -> Cell {
        Cell::put(b("r"), b("cf"), b(q), ts, value.to_vec())
    }

    #[test]
    fn rules_on_one_column_compound_into_one_cell() {
        let changes = vec![
            change("n", Rule::IncrementAmount(5)),
            change("s", Rule::AppendValue(b("b"))),
            change("n", Rule::IncrementAmount(-2)),
            change("s", Rule::AppendValue(b("c"))),
        ];
        let current = RowResult {
            row: b("r"),
            cells: vec![stored("s", 10, b"a")],
        };
        let cells = apply(&b("r"), &changes, Some(current), 100).unwrap();
        assert_eq!(cells.len(), 2);
        assert_eq!(cells[0].qualifier, b("n"));
        assert_eq!(cells[0].value.as_ref(), &3i64.to_be_bytes());
        assert_eq!(cells[1].value, b("abc"));
    }

    #[test]
    fn the_new_timestamp_is_now_or_the_newest_existing_one() {
        let changes = vec![
            change("past", Rule::AppendValue(b("x"))),
            change("future", Rule::AppendValue(b("x"))),
        ];
        let current = RowResult {
            row: b("r"),
            cells: vec![stored("future", 500, b""), stored("past", 50, b"")],
        };
        let cells = apply(&b("r"), &changes, Some(current), 100).unwrap();
        let ts: Vec<(Bytes, i64)> = cells
            .iter()
            .map(|c| (c.qualifier.clone(), c.timestamp))
            .collect();
        assert_eq!(ts, vec![(b("future"), 500), (b("past"), 100)]);
    }

    #[test]
    fn increments_need_an_eight_byte_counter() {
        let changes = vec![change("n", Rule::IncrementAmount(1))];
        let current = RowResult {
            row: b("r"),
            cells: vec![stored("n", 1, b"abc")],
        };
        let err = apply(&b("r"), &changes, Some(current), 2).unwrap_err();
        assert!(matches!(err, ServiceError::IncompatibleValue(_)));
        let wrapped = RowResult {
            row: b("r"),
            cells: vec![stored("n", 1, &i64::MAX.to_be_bytes())],
        };
        let cells = apply(&b("r"), &changes, Some(wrapped), 2).unwrap();
        assert_eq!(
            cells[0].value.as_ref(),
            &i64::MIN.to_be_bytes(),
            "wraps like HBase"
        );
    }

    #[test]
    fn the_reply_groups_cells_by_family_in_microseconds() {
        let mut other = stored("z", 3, b"v");
        other.family = b("f2");
        let row = row_of(
            b("r"),
            vec![stored("a", 2, b"1"), stored("b", 2, b"2"), other],
        );
        assert_eq!(row.families.len(), 2);
        assert_eq!(row.families[0].columns.len(), 2);
        assert_eq!(row.families[1].columns[0].cells[0].timestamp_micros, 3000);
    }
}
