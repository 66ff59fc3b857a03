//! Volumes: the directories (on possibly different devices) that hold a store's files, and
//! the policy deciding which volume a new file goes to.
//!
//! Files are named by (volume name, path relative to the volume root), so a store's metadata
//! stays valid when a volume is mounted somewhere else.

mod health;
mod movement;
mod policy;
mod rotation;
mod storage_policy;
mod storage_type;
mod tier_settings;
mod tiered;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

pub use health::{VolumeHealth, VolumeHealthReport, FAILED_FOR};
pub use policy::{ByCategory, FirstVolume, PlacementPolicy};
pub use storage_policy::{PolicyTypes, StoragePolicy};
pub use storage_type::StorageType;
pub use tier_settings::{TierSettings, TierSettingsMap};
pub use tiered::Tiered;

use super::FileSystem;
use crate::error::{Error, Result};

/// Why a file is being written, which decides where it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileCategory {
    /// Write-ahead log segments.
    Wal,
    /// SSTables written by a memtable flush.
    Flush,
    /// SSTables written by a compaction.
    Compaction,
    /// Files kept for backup or point-in-time recovery.
    Archive,
}

impl FileCategory {
    /// Every category, for iteration and parsing.
    pub const ALL: [FileCategory; 4] = [
        FileCategory::Wal,
        FileCategory::Flush,
        FileCategory::Compaction,
        FileCategory::Archive,
    ];

    fn name(self) -> &'static str {
        match self {
            FileCategory::Wal => "wal",
            FileCategory::Flush => "flush",
            FileCategory::Compaction => "compaction",
            FileCategory::Archive => "archive",
        }
    }
}

impl fmt::Display for FileCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FileCategory {
    type Err = Error;

    /// Case-insensitive "wal", "flush", "compaction" or "archive".
    fn from_str(s: &str) -> Result<Self> {
        FileCategory::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::InvalidArgument(format!("unknown file category {s:?}")))
    }
}

/// One directory that holds store files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    /// A stable name, recorded in metadata instead of the root path.
    pub name: String,
    /// The directory files are placed under.
    pub root: PathBuf,
    /// The device kind, for policies and operators.
    pub storage_type: StorageType,
}

impl Volume {
    /// A volume named `name` rooted at `root`.
    pub fn new(
        name: impl Into<String>,
        root: impl Into<PathBuf>,
        storage_type: StorageType,
    ) -> Self {
        Volume {
            name: name.into(),
            root: root.into(),
            storage_type,
        }
    }
}

/// Where a new file goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The chosen volume's name (what metadata records).
    pub volume: String,
    /// The path relative to the volume root, as requested.
    pub relative: PathBuf,
    /// The full path to create the file at.
    pub path: PathBuf,
    /// The chosen volume's storage type (its tier settings apply to the file).
    pub storage_type: StorageType,
}

/// A store's volumes, the filesystem they live on and the placement policy.
#[derive(Debug, Clone)]
pub struct Volumes {
    fs: Arc<dyn FileSystem>,
    volumes: Vec<Volume>,
    policy: Arc<dyn PlacementPolicy>,
    tiers: Arc<TierSettingsMap>,
    /// Each volume's recent behaviour, when measured (more than one volume).
    health: Option<Arc<VolumeHealth>>,
    /// Pass over volumes much slower than their storage type's fastest (the default);
    /// off, only failing and full ones leave the rotation.
    avoid_slow: bool,
}

impl Volumes {
    /// Checks that there is at least one volume and that names are non-empty and unique.
    pub fn new(
        fs: Arc<dyn FileSystem>,
        volumes: Vec<Volume>,
        policy: Arc<dyn PlacementPolicy>,
    ) -> Result<Self> {
        if volumes.is_empty() {
            return Err(Error::InvalidArgument("no volumes configured".into()));
        }
        for (i, volume) in volumes.iter().enumerate() {
            if volume.name.is_empty() {
                return Err(Error::InvalidArgument("empty volume name".into()));
            }
            if volumes[..i].iter().any(|v| v.name == volume.name) {
                let msg = format!("duplicate volume name {:?}", volume.name);
                return Err(Error::InvalidArgument(msg));
            }
        }
        Ok(Volumes {
            fs,
            volumes,
            policy,
            tiers: Arc::default(),
            health: None,
            avoid_slow: true,
        })
    }

    /// The default layout: one SSD volume named "default" at `root`, everything placed there.
    pub fn single(fs: Arc<dyn FileSystem>, root: PathBuf) -> Self {
        Volumes {
            fs,
            volumes: vec![Volume::new("default", root, StorageType::Ssd)],
            policy: Arc::new(FirstVolume),
            tiers: Arc::default(),
            health: None,
            avoid_slow: true,
        }
    }

    /// Applies `tiers` to the files written from now on.
    pub fn with_tier_settings(mut self, tiers: TierSettingsMap) -> Self {
        self.tiers = Arc::new(tiers);
        self
    }

    /// What files written on a volume of `storage_type` override.
    pub fn tier_settings(&self, storage_type: StorageType) -> TierSettings {
        self.tiers.get(&storage_type).copied().unwrap_or_default()
    }

    /// The filesystem every volume lives on.
    pub fn fs(&self) -> &Arc<dyn FileSystem> {
        &self.fs
    }

    /// The volumes, in configuration order.
    pub fn list(&self) -> &[Volume] {
        &self.volumes
    }

    /// The volume named `name`.
    pub fn get(&self, name: &str) -> Option<&Volume> {
        self.volumes.iter().find(|v| v.name == name)
    }

    /// Picks a volume for a new `category` file at `relative` and creates its parent
    /// directory there.
    pub fn place(&self, category: FileCategory, relative: &Path) -> Result<Placement> {
        self.place_for(category, None, relative)
    }

    /// `place` for a file of a family whose own `STORAGE_POLICY` (if any) overrides the
    /// server's.
    pub fn place_for(
        &self,
        category: FileCategory,
        family_policy: Option<StoragePolicy>,
        relative: &Path,
    ) -> Result<Placement> {
        check_relative(relative)?;
        // The policy chooses among the volumes in rotation (not failing, full or slow).
        let usable = self.in_rotation();
        let filtered: Vec<Volume>;
        let candidates = if usable.len() == self.volumes.len() {
            &self.volumes
        } else {
            filtered = usable.iter().map(|&i| self.volumes[i].clone()).collect();
            &filtered
        };
        let chosen = match family_policy {
            Some(policy) => self.policy.choose_for_family(category, policy, candidates),
            None => self.policy.choose(category, candidates),
        };
        let index = usable.get(chosen).copied().unwrap_or(usize::MAX);
        let volume = self.volumes.get(index).ok_or_else(|| {
            let msg = format!(
                "placement policy chose volume {chosen} of {}",
                candidates.len()
            );
            Error::InvalidArgument(msg)
        })?;
        self.placement_on(volume, relative)
    }

    /// `relative` on `volume`, its parent directory created.
    fn placement_on(&self, volume: &Volume, relative: &Path) -> Result<Placement> {
        let path = volume.root.join(relative);
        if let Some(parent) = path.parent() {
            self.fs.create_dir_all(parent)?;
        }
        Ok(Placement {
            volume: volume.name.clone(),
            relative: relative.to_path_buf(),
            path,
            storage_type: volume.storage_type,
        })
    }

    /// The volumes WAL groups are spread over, in configuration order: every volume of the
    /// storage type the placement policy puts WAL segments on, or the one volume it picks
    /// for them when it does not place by storage type. Health is not consulted: a group
    /// stays on its volume, so that a slow device slows only the regions logging there.
    pub fn wal_volumes(&self) -> Vec<&Volume> {
        let all = &self.volumes;
        match self.policy.preferred_type(FileCategory::Wal, None, all) {
            Some(t) => all.iter().filter(|v| v.storage_type == t).collect(),
            None => {
                let chosen = self.policy.choose(FileCategory::Wal, all);
                all.get(chosen).or(all.first()).into_iter().collect()
            }
        }
    }

    /// The full path of `relative` on the volume named `volume_name`; an unknown volume is
    /// `Error::NotFound` (metadata naming a volume that is no longer configured).
    pub fn resolve(&self, volume_name: &str, relative: &Path) -> Result<PathBuf> {
        check_relative(relative)?;
        let volume = self
            .get(volume_name)
            .ok_or_else(|| Error::NotFound(format!("volume {volume_name:?}")))?;
        Ok(volume.root.join(relative))
    }

    /// The directory `relative` on the first (primary) volume, created if missing. Metadata
    /// that is not a data file (store manifests) lives there.
    pub fn primary_dir(&self, relative: &Path) -> Result<PathBuf> {
        check_relative(relative)?;
        let root = self
            .volumes
            .first()
            .map(|v| v.root.clone())
            .ok_or_else(|| Error::InvalidArgument("no volume is configured".into()))?;
        let dir = root.join(relative);
        self.fs.create_dir_all(&dir)?;
        Ok(dir)
    }
}

/// A relative path must stay inside its volume: no root, no prefix, no `..`.
fn check_relative(relative: &Path) -> Result<()> {
    let inside = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if relative.as_os_str().is_empty() || !inside {
        let msg = format!("{} is not a path inside a volume", relative.display());
        return Err(Error::InvalidArgument(msg));
    }
    Ok(())
}
