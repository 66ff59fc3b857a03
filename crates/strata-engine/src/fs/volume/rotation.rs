//! Which volumes new files may go to now: those not failing, not nearly full and not much
//! slower than the others of their storage type ([`super::VolumeHealth`]). When that would
//! leave none, all of them: a placement must always succeed somewhere, and the write that
//! fails on a bad volume is retried (flushes and compactions are) on the next choice.

use std::path::PathBuf;
use std::sync::Arc;

use super::{VolumeHealth, VolumeHealthReport, Volumes};
use crate::fs::health_fs::HealthFs;
use crate::util::clock::Clock;

/// A volume with less free space than this gets no new files.
pub const MIN_FREE_BYTES: u64 = 256 << 20;

impl Volumes {
    /// Measures every volume (sync latency, errors) from now on, timing on `clock`, and
    /// lets placement avoid the bad ones. Only worth it with more than one volume.
    pub fn with_health(mut self, clock: Arc<dyn Clock>) -> Self {
        let health = Arc::new(VolumeHealth::new(self.volumes.len(), clock));
        let roots: Vec<PathBuf> = self.volumes.iter().map(|v| v.root.clone()).collect();
        self.fs = Arc::new(HealthFs::new(
            Arc::clone(&self.fs),
            roots,
            Arc::clone(&health),
        ));
        self.health = Some(health);
        self
    }

    /// Whether placement passes over slow volumes (on by default). Off, a slow volume keeps
    /// its turns and is only reported as `slow`: for comparing the latency-aware chooser
    /// with plain turns (`[engine] avoid_slow_volumes`).
    pub fn avoiding_slow_volumes(mut self, on: bool) -> Self {
        self.avoid_slow = on;
        self
    }

    /// The indices of the volumes in rotation, in configuration order.
    pub(super) fn in_rotation(&self) -> Vec<usize> {
        let all: Vec<usize> = (0..self.volumes.len()).collect();
        let Some(health) = &self.health else {
            return all;
        };
        let healthy: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| !health.is_failed(i) && !self.is_full(i))
            .collect();
        let usable: Vec<usize> = healthy
            .iter()
            .copied()
            .filter(|&i| !self.avoid_slow || !health.is_slow(i, &self.peers(i, &healthy)))
            .collect();
        if usable.is_empty() {
            all
        } else {
            usable
        }
    }

    /// The volumes among `of` with volume `index`'s storage type.
    fn peers(&self, index: usize, of: &[usize]) -> Vec<usize> {
        let storage_type = self.volumes[index].storage_type;
        of.iter()
            .copied()
            .filter(|&i| self.volumes[i].storage_type == storage_type)
            .collect()
    }

    fn is_full(&self, index: usize) -> bool {
        self.fs
            .free_space(&self.volumes[index].root)
            .is_some_and(|free| free < MIN_FREE_BYTES)
    }

    /// The average sync time of the fastest measured volume of `storage_type` (the one the
    /// chooser would favour); `None` before any is measured.
    pub fn type_sync_latency_us(&self, storage_type: super::StorageType) -> Option<u64> {
        let health = self.health.as_ref()?;
        (0..self.volumes.len())
            .filter(|&i| self.volumes[i].storage_type == storage_type)
            .filter_map(|i| health.sync_latency_us(i))
            .min()
    }

    /// Each volume's name and health, for operators; empty when not measured.
    pub fn health_report(&self) -> Vec<(String, VolumeHealthReport)> {
        let Some(health) = &self.health else {
            return Vec::new();
        };
        let all: Vec<usize> = (0..self.volumes.len()).collect();
        all.iter()
            .map(|&i| {
                let report = health.report(i, &self.peers(i, &all));
                (self.volumes[i].name.clone(), report)
            })
            .collect()
    }
}
