//! HBase's read options (columns, versions, time range) in Strata's request types.

use strata_engine::{ColumnSelection, TimeRange};

use crate::exception::RemoteException;
use crate::pb;

/// The columns a Get or Scan names (none: every family).
pub fn columns(columns: &[pb::Column]) -> ColumnSelection {
    let mut selection = ColumnSelection::new();
    for column in columns {
        if column.qualifier.is_empty() {
            selection.insert(column.family.clone(), None);
            continue;
        }
        let entry = selection
            .entry(column.family.clone())
            .or_insert_with(|| Some(Default::default()));
        if let Some(qualifiers) = entry {
            qualifiers.extend(column.qualifier.iter().cloned());
        }
    }
    selection
}

/// A time range; HBase's default is `[0, Long.MAX_VALUE)`.
pub fn time_range(range: Option<&pb::TimeRange>) -> Result<TimeRange, RemoteException> {
    let Some(range) = range else {
        return Ok(TimeRange::ALL);
    };
    let min = i64::try_from(range.from()).map_err(|_| bad_range())?;
    let max = match range.to {
        None => i64::MAX,
        Some(to) => i64::try_from(to).map_err(|_| bad_range())?,
    };
    if min > max {
        return Err(RemoteException::invalid(format!(
            "time range [{min}, {max}) ends before it starts"
        )));
    }
    Ok(TimeRange::new(min, max))
}

fn bad_range() -> RemoteException {
    RemoteException::invalid("time range bound is out of range")
}

/// Versions to read: 0 is not a valid count in HBase.
pub fn max_versions(versions: u32) -> Result<u32, RemoteException> {
    if versions == 0 {
        return Err(RemoteException::invalid("max versions must be at least 1"));
    }
    Ok(versions)
}
