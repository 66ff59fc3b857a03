//! The master's care of the cluster's region directory (`/regions/`):
//!
//! - **Ids above everything in use.** A server that becomes master allocates region ids
//!   above every id in the directory, the catalog and the store. Its own counter was set
//!   when it opened, and the previous master allocated ids since: reusing one would make
//!   a new region claim an old record and open an old region's files.
//! - **Records no table lists are removed.** A region leaves the catalog when its table is
//!   dropped or it is split or merged away, and a split or merge whose master died before
//!   its commit leaves records of regions that never existed. Such records would show in
//!   `strata cluster status` as regions nobody serves. The master removes each one, with
//!   its claim, in a transaction guarded by its epoch, and only while no catalog change
//!   runs on it (a split creates its daughters' records before the catalog names them).
//!   Their manifest pointers stay (see `gc/live.rs`: they keep ids from being reused).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use strata_coord::Leadership;
use strata_server::directory::TableDirectory;

use crate::node::ClusterNode;
use crate::ownership::Ownership;

/// Whether this master has followed the catalog and reserved the region ids in use: until
/// then its view of the catalog may be behind.
#[derive(Debug, Default)]
pub struct DirectoryCare {
    caught_up: AtomicBool,
}

impl DirectoryCare {
    /// Makes `directory` allocate region ids above every region in the cluster's
    /// directory, after catching up with the catalog. Called as this server becomes master.
    pub fn reserve_region_ids(
        &self,
        node: &ClusterNode,
        directory: &TableDirectory,
    ) -> crate::Result<()> {
        let service_error = |e: strata_server::error::ServiceError| {
            crate::Error::Service(format!("cannot reserve region ids: {e}"))
        };
        directory.catalog_sync().follow().map_err(service_error)?;
        let regions = node.coord.regions().map_err(|source| crate::Error::Etcd {
            endpoints: node.config.etcd.clone(),
            source,
        })?;
        let in_use = regions.iter().map(|r| r.id).max().unwrap_or(0);
        directory
            .catalog_sync()
            .reserve_region_ids_above(in_use)
            .map_err(service_error)?;
        self.caught_up.store(true, Ordering::Release);
        Ok(())
    }

    /// The master's pass: removes the directory's records of regions the catalog does not
    /// name (as last read by `refresh_view`), once this master has caught up with the
    /// catalog. Returns how many it removed.
    pub fn forget_uncataloged(
        &self,
        ownership: &Ownership,
        lead: &Leadership,
        directory: &TableDirectory,
    ) -> usize {
        // A catalog view that may be behind would make new regions look unlisted.
        if !self.caught_up.load(Ordering::Acquire) {
            if let Err(e) = self.reserve_region_ids(&ownership.node, directory) {
                tracing::warn!(error = %e, "cannot catch up with the catalog");
                return 0;
            }
        }
        let view = ownership.view.read().clone();
        directory.catalog_sync().with_catalog_regions(|named: &HashSet<u64>| {
            let mut forgotten = 0;
            for region in view.regions.values() {
                if named.contains(&region.id) {
                    continue;
                }
                match ownership.node.coord.forget_region(lead, region.id, region.epoch) {
                    Ok(()) => {
                        tracing::info!(
                            region = region.id,
                            table = %region.record.table,
                            "removed a region no table lists from the directory"
                        );
                        forgotten += 1;
                    }
                    Err(e) => {
                        tracing::warn!(region = region.id, error = %e, "cannot remove a region no table lists")
                    }
                }
            }
            forgotten
        })
    }
}
