//! Table-wide flushes and compactions (HBase's `flush` and `compact`/`major_compact`, and
//! Bigtable's DropRowRange's second step), over the regions here and, for a client's
//! request, through their peers for the regions served elsewhere.

use strata_engine::Region;

use super::TableDirectory;
use crate::error::Result;
use crate::names::TableName;
use crate::remote::{Origin, RegionWork, RowSpan};
use crate::table::RegionLocation;

impl TableDirectory {
    /// Does `work` on every region of `table` overlapping `span`: here, or (for a client's
    /// request) by asking the region's peer. A peer's request covers only regions here.
    /// Answers the regions' size in bytes after the work.
    pub(crate) fn maintain(
        &self,
        table: &TableName,
        span: &RowSpan,
        work: RegionWork,
        origin: Origin,
    ) -> Result<u64> {
        if work == RegionWork::Release && origin == Origin::Peer {
            // A move's release of one region: serialised with this server's placement.
            return self.release_asked(table, &span.start);
        }
        let state = self.table(table)?;
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
                RegionLocation::Here(_) => self.maintain_region(table, &region, work)?,
                RegionLocation::Peer(_) if origin == Origin::Client => {
                    crate::remote::until_served(|| self.maintain_region(table, &region, work))?
                }
                RegionLocation::Peer(_) => 0,
            };
        }
        Ok(bytes)
    }
}

impl TableDirectory {
    /// Does `work` on the region `region` names (by its bounds), wherever the directory
    /// places it now; answers its size in bytes after the work.
    pub fn maintain_region(
        &self,
        table: &TableName,
        region: &RowSpan,
        work: RegionWork,
    ) -> Result<u64> {
        let state = self.table(table)?;
        let open = &state.regions[state.region_index_for(&region.start)];
        match &open.location {
            RegionLocation::Here(local) if work == RegionWork::Release => {
                let bytes = local.size_bytes();
                self.release_region(table, open.entry.id)?;
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
