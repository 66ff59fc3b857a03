//! Table-wide flushes and compactions (HBase's `flush` and `compact`/`major_compact`, and
//! Bigtable's DropRowRange's second step), over the regions here and, for a client's
//! request, through their peers for the regions served elsewhere.

use strata_engine::Region;

use super::TableDirectory;
use crate::error::Result;
use crate::names::TableName;
use crate::remote::{Origin, RegionWork, RowSpan};
use crate::table::RegionLocation;

/// Flushes and compactions of a directory's regions (see [`TableDirectory::maintenance`]).
pub struct Maintenance<'a> {
    pub(super) dir: &'a TableDirectory,
}

impl Maintenance<'_> {
    /// Flushes every region of the table, wherever it is served.
    pub fn flush_table(&self, name: &TableName) -> Result<()> {
        self.on_span(name, &RowSpan::default(), RegionWork::Flush, Origin::Client)
            .map(|_| ())
    }

    /// Compacts every region of the table, wherever it is served (after a flush, for a
    /// major compaction).
    pub fn compact_table(&self, name: &TableName, major: bool) -> Result<()> {
        let work = if major {
            RegionWork::MajorCompact
        } else {
            RegionWork::Compact
        };
        self.on_span(name, &RowSpan::default(), work, Origin::Client)
            .map(|_| ())
    }

    /// Does `work` on every region of `table` overlapping `span`: here, or (for a client's
    /// request) by asking the region's peer. A peer's request covers only regions here.
    /// Answers the regions' size in bytes after the work.
    pub(crate) fn on_span(
        &self,
        table: &TableName,
        span: &RowSpan,
        work: RegionWork,
        origin: Origin,
    ) -> Result<u64> {
        if work == RegionWork::Release && origin == Origin::Peer {
            // A move's release of one region: serialised with this server's placement.
            return self.dir.placements().release_asked(table, &span.start);
        }
        let state = self.dir.table(table)?;
        let mut bytes = 0;
        let overlapping = state
            .regions
            .iter()
            .filter(|r| span.overlaps(&r.entry.start_key, &r.entry.end_key));
        for open in overlapping {
            let region = RowSpan {
                start: open.entry.start_key.clone(),
                end: open.entry.end_key.clone(),
            };
            bytes += match &open.location {
                RegionLocation::Here(_) => self.on_region(table, &region, work)?,
                RegionLocation::Peer(_) if origin == Origin::Client => {
                    crate::remote::until_served(|| self.on_region(table, &region, work))?
                }
                RegionLocation::Peer(_) => 0,
            };
        }
        Ok(bytes)
    }

    /// Does `work` on the region `region` names (by its bounds), wherever the directory
    /// places it now; answers its size in bytes after the work.
    pub fn on_region(&self, table: &TableName, region: &RowSpan, work: RegionWork) -> Result<u64> {
        let state = self.dir.table(table)?;
        let open = &state.regions[state.region_index_for(&region.start)];
        match &open.location {
            RegionLocation::Here(local) if work == RegionWork::Release => {
                let bytes = local.size_bytes();
                self.dir.placements().release_region(table, open.entry.id)?;
                Ok(bytes)
            }
            RegionLocation::Here(local) => {
                work_on(local, work)?;
                Ok(local.size_bytes())
            }
            RegionLocation::Peer(peer) => peer.maintain(&state.peer_table(), region, work),
        }
    }
}

/// Does `work` on one region. A region being split or merged is skipped: its files are
/// rewritten into the new regions, which the work's next run reaches.
fn work_on(region: &Region, work: RegionWork) -> Result<()> {
    let done = match work {
        RegionWork::Measure | RegionWork::Release => Ok(()),
        RegionWork::Flush => region.flush(),
        RegionWork::Compact => region.compact(false).map(|_| ()),
        RegionWork::MajorCompact => region
            .flush()
            .and_then(|()| region.compact(true).map(|_| ())),
    };
    match done {
        Err(e) if e.is_region_sealed() => Ok(()),
        other => Ok(other?),
    }
}
