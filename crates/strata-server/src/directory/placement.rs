//! Placing a table's regions again when the cluster says they moved: the registry (cluster
//! mode) is asked where each region is served now, and the directory follows. A region
//! newly placed here is claimed and opened; one placed elsewhere is sealed (so writes to it
//! wait and are routed again), flushed and closed; a peer's region gets its new peer.
//! Standalone has no registry and nothing ever moves.

use std::sync::Arc;

use super::TableDirectory;
use crate::error::Result;
use crate::names::TableName;
use crate::registry::Placement;
use crate::table::{OpenRegion, RegionLocation, TableState};

/// Where a directory's regions are served (see [`TableDirectory::placements`]).
pub struct Placements<'a> {
    pub(super) dir: &'a TableDirectory,
}

impl Placements<'_> {
    /// Places every region of every table as the registry says now; returns how many
    /// regions changed place. A region that fails to open stays where it was placed
    /// before, and the first such error is returned after every other region was placed.
    pub fn refresh(&self) -> Result<usize> {
        let _admin = self.dir.lock_admin();
        let names: Vec<TableName> = self.dir.tables.read().keys().cloned().collect();
        let (mut moved, mut first_error) = (0, None);
        for name in names {
            let Some(state) = self.dir.tables.read().get(&name).cloned() else {
                continue;
            };
            let (regions, changed, error) = self.place_regions(&state);
            if changed > 0 {
                moved += changed;
                self.dir.publish(TableState::new(
                    state.name.clone(),
                    state.record.clone(),
                    regions,
                ));
            }
            first_error = first_error.or(error);
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(moved),
        }
    }

    /// The table's regions as placed now, how many changed, and the first error.
    fn place_regions(
        &self,
        state: &TableState,
    ) -> (Vec<OpenRegion>, usize, Option<crate::error::ServiceError>) {
        let table = state.name.to_string();
        let (mut regions, mut changed, mut error) = (Vec::new(), 0, None);
        for open in &state.regions {
            let placement = self.dir.opener.placement(&table, &open.entry);
            let location = match (&open.location, placement) {
                (RegionLocation::Here(region), Placement::Here) => {
                    RegionLocation::Here(Arc::clone(region))
                }
                (RegionLocation::Peer(_), Placement::Here) => {
                    match self
                        .dir
                        .opener
                        .open(&table, &open.entry, &state.record.families)
                    {
                        Ok(region) => {
                            changed += 1;
                            RegionLocation::Here(region)
                        }
                        Err(e) => {
                            error = error.or(Some(e));
                            open.location.clone()
                        }
                    }
                }
                (RegionLocation::Here(region), Placement::Peer(peer)) => {
                    self.release_placed_elsewhere(&table, region);
                    changed += 1;
                    RegionLocation::Peer(peer)
                }
                (RegionLocation::Peer(old), Placement::Peer(peer)) => {
                    if old.address() != peer.address() {
                        changed += 1;
                    }
                    RegionLocation::Peer(peer)
                }
            };
            regions.push(OpenRegion {
                entry: open.entry.clone(),
                location,
            });
        }
        (regions, changed, error)
    }

    /// Stops serving region `id` of `table` for a move (the master then assigns it
    /// elsewhere): sealed (writes to it wait and are routed again), flushed and closed,
    /// and placed nowhere until it is assigned anew. Everything written to it is in its
    /// files, so its next owner replays nothing.
    pub fn release_region(&self, table: &TableName, id: u64) -> Result<()> {
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(table)?;
        let Some(index) = state.regions.iter().position(|r| r.entry.id == id) else {
            return Err(crate::error::ServiceError::NotServingRegion {
                table: table.to_string(),
                region: id,
            });
        };
        self.release_at(&state, index)
    }

    /// A peer (the master, for a move) asks this server to release the region starting at
    /// `start`; answers its size in bytes. Taken under the admin lock, which placement
    /// holds while it claims and opens a region: one being opened here (its claim made, a
    /// replay waiting on the store) is released once open. Answered as not here, it would
    /// open after the answer at the epoch the master moves it from, and acknowledge writes
    /// its next owner never replays (seed 123). One not open here is noted as released
    /// all the same, so it is not opened at that epoch later.
    pub(crate) fn release_asked(&self, table: &TableName, start: &[u8]) -> Result<u64> {
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(table)?;
        let index = state.region_index_for(start);
        let open = &state.regions[index];
        if open.entry.start_key.as_ref() != start {
            return Ok(0); // not one region of this server's view: nothing of it is here
        }
        match open.local() {
            Some(region) => {
                let bytes = region.size_bytes();
                self.release_at(&state, index)?;
                Ok(bytes)
            }
            None => {
                self.dir.opener.released(&table.to_string(), &open.entry);
                Ok(0)
            }
        }
    }

    /// Releases `state.regions[index]` (see [`TableDirectory::release_region`]); the
    /// caller holds the admin lock.
    fn release_at(&self, state: &TableState, index: usize) -> Result<()> {
        let table = &state.name;
        let open = &state.regions[index];
        let id = open.entry.id;
        let region = Arc::clone(open.local_or_unavailable(table)?);
        region.seal()?;
        self.dir.engine.close_region(id)?;
        let name = table.to_string();
        self.dir.opener.released(&name, &open.entry);
        let mut regions = super::same_regions(state);
        regions[index].location =
            RegionLocation::Peer(Arc::new(crate::remote::Unplaced { region: id }));
        self.dir.publish(TableState::new(
            state.name.clone(),
            state.record.clone(),
            regions,
        ));
        tracing::info!(table = %table, region = id, "region released for a move");
        Ok(())
    }

    /// Stops serving a region placed elsewhere: sealed first (writes to it wait, and are
    /// routed again once the new placement is published), then flushed and closed. A
    /// region this server no longer owns cannot commit its flush; it is left to the new
    /// owner, who replays this server's WAL.
    fn release_placed_elsewhere(&self, table: &str, region: &Arc<strata_engine::Region>) {
        let id = region.id();
        let closed = region
            .seal()
            .and_then(|()| self.dir.engine.close_region(id));
        match closed {
            Ok(()) => tracing::info!(table, region = id, "region released to another server"),
            Err(e) => {
                tracing::warn!(table, region = id, error = %e, "region placed elsewhere could not be flushed and closed here")
            }
        }
    }
}
