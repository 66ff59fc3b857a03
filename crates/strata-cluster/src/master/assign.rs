//! The master's assignments: a new region goes to the live server serving the fewest, and
//! a region whose owner is gone is reassigned the same way once the dead server's WAL
//! streams are sealed. [`Assigner`] is what the server's [`Ownership`] asks, through
//! [`LeaderDuties`], for the regions it opens itself while it leads.

use std::sync::Arc;

use strata_coord::{Epoch, Leadership, Region, RegionRecord, RegionState};
use strata_server::registry::RegionClaim;

use super::retire::Retirement;
use super::seal::seal_dead_streams;
use crate::node::ClusterNode;
use crate::ownership::{LeaderDuties, Ownership};
use crate::view::ClusterView;

/// The master's creation and assignment of the regions it opens.
#[derive(Debug)]
pub struct Assigner {
    pub node: Arc<ClusterNode>,
    pub lead: Leadership,
}

impl LeaderDuties for Assigner {
    fn place_new(&self, claim: RegionClaim<'_>, view: &ClusterView) -> Option<String> {
        let target = view.least_loaded()?;
        let coord = &self.node.coord;
        let record = RegionRecord::new(claim.table, claim.start, claim.end);
        let created = coord.create_region(&self.lead, claim.id, &record).ok()?;
        coord
            .assign_region(&self.lead, claim.id, created, Some(&target))
            .ok()?;
        tracing::info!(region = claim.id, table = claim.table, owner = %target, "new region assigned");
        Some(target)
    }

    fn take_for_claim(
        &self,
        claim: RegionClaim<'_>,
        region: Option<&Region>,
    ) -> strata_coord::Result<Epoch> {
        let coord = &self.node.coord;
        let epoch = match region {
            // Another server's region is not taken over here: that is a move (the owner
            // flushes and releases it) or, if the owner died, the orphan pass, which seals
            // its WAL streams first. Taking it here would let a server that has not yet
            // noticed it lost its lease acknowledge writes no replay saw.
            Some(Region {
                record: RegionRecord {
                    owner: Some(owner), ..
                },
                ..
            }) if *owner != self.node.sid => {
                return Err(strata_coord::Error::Fenced(format!(
                    "region {} is assigned to {owner}, not to this server",
                    claim.id
                )))
            }
            Some(region) => region.epoch,
            None => {
                let record = RegionRecord::new(claim.table, claim.start, claim.end);
                coord.create_region(&self.lead, claim.id, &record)?
            }
        };
        coord.assign_region(&self.lead, claim.id, epoch, Some(&self.node.sid))
    }
}

/// The master's pass over `regions` (every region the catalog lists): each one whose
/// owner is gone is assigned to the least loaded live server, after the dead servers' WAL
/// streams are sealed (so what they acknowledged is final before anyone replays it).
/// Returns how many were assigned.
pub fn assign_orphans(
    ownership: &Ownership,
    lead: &Leadership,
    retirement: &Retirement,
    regions: &[u64],
) -> crate::Result<usize> {
    let view = ownership.view();
    let orphans: Vec<&Region> = regions
        .iter()
        .filter_map(|id| view.regions.get(id))
        .filter(|r| r.record.state == RegionState::Open || r.record.state == RegionState::Offline)
        .filter(|r| view.live_owner(r).is_none())
        .collect();
    if orphans.is_empty() {
        return Ok(0);
    }
    let node = &ownership.node;
    retirement.note_sealed(seal_dead_streams(node)?);
    let mut assigned = 0;
    for region in orphans {
        let Some(target) = ownership.view.read().least_loaded() else {
            break;
        };
        match node
            .coord
            .assign_region(lead, region.id, region.epoch, Some(&target))
        {
            Ok(_) => {
                tracing::info!(region = region.id, owner = %target, "region reassigned");
                assigned += 1;
            }
            Err(e) => tracing::warn!(region = region.id, error = %e, "could not reassign"),
        }
        ownership
            .refresh_view()
            .map_err(|source| crate::Error::Etcd {
                endpoints: node.config.etcd.clone(),
                source,
            })?;
    }
    Ok(assigned)
}
