//! Placement policies: which volume a new file of a given category goes to.

use std::collections::HashMap;
use std::fmt::Debug;

use super::{FileCategory, StoragePolicy, StorageType, Volume};

/// Picks the volume for a new file. Implementations must be cheap: they run on every file
/// creation.
pub trait PlacementPolicy: Send + Sync + Debug {
    /// The index into `volumes` (never empty) for a new file of `category`.
    fn choose(&self, category: FileCategory, volumes: &[Volume]) -> usize;

    /// The same for a file of a family with its own storage policy; policies that do not
    /// place by storage type ignore it.
    fn choose_for_family(
        &self,
        category: FileCategory,
        _family_policy: StoragePolicy,
        volumes: &[Volume],
    ) -> usize {
        self.choose(category, volumes)
    }

    /// The storage type this policy would place a new `category` file on now (for the
    /// mover); `None` for policies that do not place by storage type.
    fn preferred_type(
        &self,
        _category: FileCategory,
        _family_policy: Option<StoragePolicy>,
        _volumes: &[Volume],
    ) -> Option<StorageType> {
        None
    }

    /// A volume of `storage_type` for a file the mover copies there; by default the first
    /// one of that type.
    fn choose_of_type(&self, storage_type: StorageType, volumes: &[Volume]) -> Option<usize> {
        volumes.iter().position(|v| v.storage_type == storage_type)
    }
}

/// Everything on the first volume: the default for a single data directory.
#[derive(Debug, Default, Clone, Copy)]
pub struct FirstVolume;

impl PlacementPolicy for FirstVolume {
    fn choose(&self, _category: FileCategory, _volumes: &[Volume]) -> usize {
        0
    }
}

/// Routes each category to a named volume (say WAL on a fast device, archives on HDD);
/// unrouted categories and names that match no volume fall back to the first volume.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ByCategory {
    routes: HashMap<FileCategory, String>,
}

impl ByCategory {
    /// No routes yet: everything on the first volume.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends `category` to the volume named `volume`.
    pub fn route(mut self, category: FileCategory, volume: impl Into<String>) -> Self {
        self.routes.insert(category, volume.into());
        self
    }

    /// The volume name `category` is routed to, if any.
    pub fn route_of(&self, category: FileCategory) -> Option<&str> {
        self.routes.get(&category).map(String::as_str)
    }
}

impl FromIterator<(FileCategory, String)> for ByCategory {
    fn from_iter<I: IntoIterator<Item = (FileCategory, String)>>(iter: I) -> Self {
        ByCategory {
            routes: iter.into_iter().collect(),
        }
    }
}

impl PlacementPolicy for ByCategory {
    fn choose(&self, category: FileCategory, volumes: &[Volume]) -> usize {
        self.route_of(category)
            .and_then(|name| volumes.iter().position(|v| v.name == name))
            .unwrap_or(0)
    }
}
