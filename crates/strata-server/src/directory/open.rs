//! Opening a table's regions, and the checks a table's families pass first.

use std::collections::BTreeSet;

use strata_engine::{Engine, FamilyOptions, RegionSpec};

use crate::catalog::TableRecord;
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::table::{OpenRegion, TableState};

/// Checks family names and settings. A table may have no family at all: Bigtable creates
/// tables that way and adds families later (HBase's own rule of at least one family is kept
/// by the Thrift adapter, which answers like HBase).
pub(crate) fn check_families(families: &[FamilyOptions]) -> Result<()> {
    let mut seen = BTreeSet::new();
    for f in families {
        let printable =
            !f.name.is_empty() && f.name.iter().all(|b| b.is_ascii_graphic() && *b != b':');
        if !printable || f.name.starts_with(b".") {
            return Err(ServiceError::InvalidArgument(format!(
                "illegal column family name {:?}",
                String::from_utf8_lossy(&f.name)
            )));
        }
        if !seen.insert(&f.name) {
            return Err(ServiceError::InvalidArgument(
                "a column family is listed twice".into(),
            ));
        }
        if f.max_versions == 0 {
            return Err(ServiceError::InvalidArgument(
                "VERSIONS must be at least 1".into(),
            ));
        }
    }
    Ok(())
}

pub(crate) fn open_table(
    engine: &Engine,
    name: TableName,
    record: TableRecord,
) -> Result<TableState> {
    let mut regions = Vec::with_capacity(record.regions.len());
    for entry in &record.regions {
        let region = engine.open_region(RegionSpec {
            id: entry.id,
            families: record.families.clone(),
        })?;
        regions.push(OpenRegion {
            entry: entry.clone(),
            region,
        });
    }
    regions.sort_by(|a, b| a.entry.start_key.cmp(&b.entry.start_key));
    Ok(TableState {
        name,
        record,
        regions,
    })
}
