//! [`Leader`]: the master's term and the state of its duties, which exist only while this
//! server leads. Each duty keeps its own state (`retire.rs`, `unclaimed.rs`,
//! `directory_care.rs`) and is handed the server's [`Ownership`] and the term; this type
//! ties them together and runs one round of them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use strata_coord::Leadership;
use strata_server::directory::TableDirectory;

use super::assign::assign_orphans;
use super::directory_care::DirectoryCare;
use super::retire::Retirement;
use super::seal::seal_dead_streams;
use super::unclaimed::Unclaimed;
use crate::ownership::Ownership;

/// The master, while it leads.
#[derive(Debug)]
pub struct Leader {
    ownership: Arc<Ownership>,
    lead: Leadership,
    /// Cleared as the role ends: administration still holding this refuses from then on.
    active: AtomicBool,
    retirement: Retirement,
    unclaimed: Unclaimed,
    care: DirectoryCare,
}

impl Leader {
    /// The master of `ownership`'s server under `lead`.
    pub fn new(ownership: Arc<Ownership>, lead: Leadership) -> Leader {
        Leader {
            ownership,
            lead,
            active: AtomicBool::new(true),
            retirement: Retirement::default(),
            unclaimed: Unclaimed::default(),
            care: DirectoryCare::default(),
        }
    }

    /// The server's ownership (its view, its peers, its node).
    pub fn ownership(&self) -> &Arc<Ownership> {
        &self.ownership
    }

    /// The term, while this server still leads.
    pub fn lead(&self) -> Option<Leadership> {
        self.active
            .load(Ordering::Acquire)
            .then(|| self.lead.clone())
    }

    /// The role ends: nothing more is done under this term.
    pub fn stand_down(&self) {
        self.active.store(false, Ordering::Release);
    }

    /// Allocates region ids above every id in use (as this server becomes master).
    pub fn reserve_region_ids(&self, directory: &TableDirectory) -> crate::Result<()> {
        self.care
            .reserve_region_ids(&self.ownership.node, directory)
    }

    /// Assignments: what the previous master or a dead owner left (before this round's
    /// moves, so its first pass sees only what the previous master left unclaimed).
    pub fn assign_round(&self, regions: &[u64]) {
        let Some(lead) = self.lead() else {
            return;
        };
        self.unclaimed.pass(&self.ownership, &lead, regions);
        if let Err(e) = assign_orphans(&self.ownership, &lead, &self.retirement, regions) {
            tracing::warn!(error = %e, "cannot reassign the regions of a dead server");
        }
    }

    /// Seals the streams of dead servers, to be retired once their regions serve again.
    /// Due before any region of a dead server is assigned anew: its new owner replays
    /// only sealed streams.
    pub fn seal_dead_streams(&self) -> crate::Result<()> {
        let sealed = seal_dead_streams(&self.ownership.node)?;
        self.retirement.note_sealed(sealed);
        Ok(())
    }

    /// Housekeeping: retiring replayed streams, forgetting records no table lists.
    pub fn care_round(&self, regions: &[u64], directory: &TableDirectory) {
        let Some(lead) = self.lead() else {
            return;
        };
        self.retirement.pass(&self.ownership, &lead, regions);
        self.care
            .forget_uncataloged(&self.ownership, &lead, directory);
    }
}
