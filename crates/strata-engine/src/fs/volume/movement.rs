//! What the mover asks of the volumes: where a file *would* go now, and a place on a given
//! storage type for the copy it makes.

use std::path::Path;

use super::{check_relative, FileCategory, Placement, StoragePolicy, StorageType, Volumes};
use crate::error::Result;

impl Volumes {
    /// The storage type a new file of `category` would be placed on now, or `None` when
    /// the placement policy does not place by storage type (then nothing is moved for a
    /// policy).
    pub fn preferred_type(
        &self,
        category: FileCategory,
        family_policy: Option<StoragePolicy>,
    ) -> Option<StorageType> {
        self.policy
            .preferred_type(category, family_policy, &self.volumes)
    }

    /// The storage type of the volume named `name`.
    pub fn type_of(&self, name: &str) -> Option<StorageType> {
        self.get(name).map(|v| v.storage_type)
    }

    /// A place on a volume of `storage_type` (taking turns among them) for a moved file at
    /// `relative`, its parent directory created; `None` if no volume has that type.
    pub fn place_on_type(
        &self,
        storage_type: StorageType,
        relative: &Path,
    ) -> Result<Option<Placement>> {
        check_relative(relative)?;
        let Some(index) = self.policy.choose_of_type(storage_type, &self.volumes) else {
            return Ok(None);
        };
        match self.volumes.get(index) {
            Some(volume) => self.placement_on(volume, relative).map(Some),
            None => Ok(None),
        }
    }
}
