//! Retiring dead servers' WAL streams, so recoveries stop reading them. A stream sealed by
//! the master holds edits only of the regions its server served when it died (a region it
//! gave up earlier was flushed when it was released). Those regions were reassigned after
//! the seal, and each new owner replayed its sections and flushed before serving. So once
//! every region of the catalog is served by a live server at its current epoch, no region
//! needs the stream any more: the master records it as replayed (`/wal/<stream>`), and
//! region opens skip it from then on.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_coord::{Leadership, Owner};
use strata_objstore::StreamId;

use super::seal::{retire_streams, seal_dead_streams};
use crate::ownership::Ownership;

/// How often the master looks for dead streams left unretired (a previous master died
/// before retiring them): each look lists the store's streams.
const LOOK_INTERVAL: Duration = Duration::from_secs(10);

/// The sealed dead streams waiting to be retired, and when the master last looked for
/// streams nobody sealed.
#[derive(Debug, Default)]
pub struct Retirement {
    to_retire: Mutex<Vec<(StreamId, u64)>>,
    last_look: Mutex<Option<Instant>>,
}

impl Retirement {
    /// Notes sealed dead streams, to retire once their regions are served again.
    pub fn note_sealed(&self, sealed: Vec<(StreamId, u64)>) {
        let mut pending = self.to_retire.lock();
        for stream in sealed {
            if !pending.iter().any(|(s, _)| *s == stream.0) {
                pending.push(stream);
            }
        }
    }

    /// The master's pass (every round): retires the sealed streams once every region in
    /// `regions` (the catalog's) is served by a live server at its epoch.
    pub fn pass(&self, ownership: &Ownership, lead: &Leadership, regions: &[u64]) {
        self.look_for_unretired(ownership);
        let pending = self.to_retire.lock().clone();
        if pending.is_empty() || !all_served(ownership, regions) {
            return;
        }
        match retire_streams(&ownership.node, lead, &pending) {
            Ok(()) => {
                let names: Vec<String> = pending.iter().map(|(s, _)| s.to_string()).collect();
                tracing::info!(streams = ?names, "dead streams retired: every region was reopened and flushed");
                self.to_retire.lock().retain(|s| !pending.contains(s));
            }
            Err(e) => tracing::warn!(error = %e, "cannot retire dead streams"),
        }
    }

    /// Now and then, the dead streams no master retired (sealing any still open).
    fn look_for_unretired(&self, ownership: &Ownership) {
        let now = ownership.node.clock.now();
        let mut last = self.last_look.lock();
        if last.is_some_and(|at| now.saturating_duration_since(at) < LOOK_INTERVAL) {
            return;
        }
        *last = Some(now);
        match seal_dead_streams(&ownership.node) {
            Ok(sealed) => self.note_sealed(sealed),
            Err(e) => tracing::warn!(error = %e, "cannot list dead streams"),
        }
    }
}

/// True when every region is claimed by a live server at its current epoch.
fn all_served(ownership: &Ownership, regions: &[u64]) -> bool {
    let Ok(owners) = ownership.node.coord.owners() else {
        return false;
    };
    let owners: HashMap<u64, Owner> = owners.into_iter().collect();
    let view = ownership.view.read();
    let live: HashSet<&String> = view.live.keys().collect();
    regions.iter().all(|id| {
        // A closed region was released (flushed) by a live owner: no stream holds it.
        if view
            .regions
            .get(id)
            .is_some_and(|r| r.record.state == strata_coord::RegionState::Closed)
        {
            return true;
        }
        let (Some(owner), Some(region)) = (owners.get(id), view.regions.get(id)) else {
            return false;
        };
        // Claimed is not enough: the claim comes before the replay.
        live.contains(&owner.sid) && owner.epoch == region.epoch && owner.serving
    })
}
