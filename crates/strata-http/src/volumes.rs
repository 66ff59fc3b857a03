//! Free and total space of the filesystems the data volumes live on.

use serde::Serialize;
use strata_engine::stats::VolumeStats;

/// A volume with its filesystem's space.
#[derive(Debug, Clone, Serialize)]
pub struct VolumeSpace {
    #[serde(flatten)]
    pub volume: VolumeStats,
    /// `None` when the filesystem could not be asked (e.g. an in-memory test filesystem).
    pub total_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
}

/// Asks the filesystem of each volume's root for its space.
pub fn with_space(volumes: Vec<VolumeStats>) -> Vec<VolumeSpace> {
    volumes
        .into_iter()
        .map(|volume| {
            let space = rustix::fs::statvfs(volume.root.as_str()).ok();
            let block = |s: &rustix::fs::StatVfs| s.f_frsize.max(1);
            VolumeSpace {
                total_bytes: space.as_ref().map(|s| s.f_blocks.saturating_mul(block(s))),
                free_bytes: space.as_ref().map(|s| s.f_bavail.saturating_mul(block(s))),
                volume,
            }
        })
        .collect()
}
