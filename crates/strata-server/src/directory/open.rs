//! Opening a table's regions, and the checks a table's families pass first.

use std::collections::BTreeSet;

use std::sync::Arc;

use strata_engine::{Engine, FamilyOptions, Region, RegionSpec};

use crate::catalog::{RegionEntry, TableRecord};
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::registry::{Placement, RegionClaim, RegionRegistry};
use crate::table::{OpenRegion, RegionLocation, TableState};

fn claim_of<'a>(table: &'a str, entry: &'a RegionEntry) -> RegionClaim<'a> {
    RegionClaim {
        table,
        id: entry.id,
        start: &entry.start_key,
        end: &entry.end_key,
    }
}

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
        crate::schema_metadata::check_family(f)?;
    }
    Ok(())
}

/// Opens regions on the engine, telling the registry (cluster mode) first.
pub(crate) struct RegionOpener {
    pub(crate) engine: Arc<Engine>,
    pub(crate) registry: Option<Arc<dyn RegionRegistry>>,
}

impl RegionOpener {
    /// Tells the registry that region `entry` of `table` is about to open or be created.
    pub(crate) fn claim(&self, table: &str, entry: &RegionEntry) -> Result<()> {
        match &self.registry {
            Some(registry) => registry.claim(claim_of(table, entry)),
            None => Ok(()),
        }
    }

    /// Tells the registry that `entry` is open here (see `RegionRegistry::opened`).
    pub(crate) fn opened(&self, table: &str, entry: &RegionEntry) {
        if let Some(registry) = &self.registry {
            registry.opened(claim_of(table, entry));
        }
    }

    /// Whether regions split on this server (see `RegionRegistry::splits_here`).
    pub(crate) fn splits_here(&self) -> bool {
        self.registry.as_ref().is_none_or(|r| r.splits_here())
    }

    /// Asks the server that splits regions to split `entry` of `table`.
    pub(crate) fn request_split(&self, table: &str, entry: &RegionEntry) {
        if let Some(registry) = &self.registry {
            registry.request_split(claim_of(table, entry));
        }
    }

    /// Tells the registry region `entry` of `table` was released here for a move.
    pub(crate) fn released(&self, table: &str, entry: &RegionEntry) {
        if let Some(registry) = &self.registry {
            registry.released(claim_of(table, entry));
        }
    }

    /// Where the registry places region `entry` of `table` (here, standalone).
    pub(crate) fn placement(&self, table: &str, entry: &RegionEntry) -> Placement {
        match &self.registry {
            Some(registry) => registry.placement(claim_of(table, entry)),
            None => Placement::Here,
        }
    }

    /// Where region `entry` of `table` is served: opened here, or forwarded to its peer.
    pub(crate) fn locate(
        &self,
        table: &str,
        entry: &RegionEntry,
        families: &[FamilyOptions],
    ) -> Result<RegionLocation> {
        match self.placement(table, entry) {
            Placement::Here => Ok(RegionLocation::Here(self.open(table, entry, families)?)),
            Placement::Peer(peer) => Ok(RegionLocation::Peer(peer)),
        }
    }

    /// Claims, then opens region `entry` of `table`.
    pub(crate) fn open(
        &self,
        table: &str,
        entry: &RegionEntry,
        families: &[FamilyOptions],
    ) -> Result<Arc<Region>> {
        self.claim(table, entry)?;
        let foreign = match &self.registry {
            Some(registry) => registry.recovered_edits(claim_of(table, entry))?,
            None => Vec::new(),
        };
        let spec = RegionSpec {
            id: entry.id,
            families: families.to_vec(),
        };
        let replayed = !foreign.is_empty();
        let region = self.engine.open_region_with(spec, foreign)?;
        if replayed {
            // What a dead owner logged is in files from now on, not only in its WAL.
            region.flush()?;
        }
        self.opened(table, entry);
        Ok(region)
    }
}

pub(crate) fn open_table(
    opener: &RegionOpener,
    name: TableName,
    record: TableRecord,
) -> Result<TableState> {
    let mut regions = Vec::with_capacity(record.regions.len());
    let table = name.to_string();
    for entry in &record.regions {
        let location = opener.locate(&table, entry, &record.families)?;
        regions.push(OpenRegion {
            entry: entry.clone(),
            location,
        });
    }
    regions.sort_by(|a, b| a.entry.start_key.cmp(&b.entry.start_key));
    Ok(TableState::new(name, record, regions))
}
