//! Which tier of the background lanes (`lanes/`) a region's flush or compaction runs in.
//!
//! The tiers are the storage types the volumes have, in the order they are first
//! configured. Work goes to the tier of the storage type its files will be written on, so
//! that work on a slow device waits only for that device's threads. A region whose
//! families write to several types goes to the slowest of them (by the volumes' recent
//! sync times; before any is measured, the type configured last): the region's work ends
//! when its slowest file is written, and it must not hold a fast tier's thread meanwhile.
//! Within one type, the chooser already keeps slow volumes out of rotation.

use crate::fs::{FileCategory, StoragePolicy, StorageType, Volumes};

/// The storage types background work is divided by.
#[derive(Debug, Clone)]
pub struct Tiers {
    types: Vec<StorageType>,
}

impl Tiers {
    /// One tier for every storage type of `volumes` when `per_storage_type`, in
    /// configuration order; else one shared by all.
    pub fn of(volumes: &Volumes, per_storage_type: bool) -> Self {
        let mut types: Vec<StorageType> = Vec::new();
        for volume in volumes.list() {
            if !types.contains(&volume.storage_type) {
                types.push(volume.storage_type);
            }
        }
        if !per_storage_type {
            types.truncate(1);
        }
        Tiers { types }
    }

    /// How many tiers there are (at least one).
    pub fn len(&self) -> usize {
        self.types.len().max(1)
    }

    /// The storage type of `tier`, for operators (the first volume's, for a shared tier).
    pub fn storage_type(&self, tier: usize) -> Option<StorageType> {
        self.types.get(tier).copied()
    }

    /// The tier of work writing `category` files for families with `policies` (0 when no
    /// family's type has a tier of its own).
    pub fn for_work(
        &self,
        volumes: &Volumes,
        category: FileCategory,
        policies: &[Option<StoragePolicy>],
    ) -> usize {
        policies
            .iter()
            .filter_map(|&policy| volumes.preferred_type(category, policy))
            .filter_map(|t| self.index_of(t))
            .max_by_key(|&tier| {
                let latency = volumes.type_sync_latency_us(self.types[tier]);
                (latency.unwrap_or(0), tier)
            })
            .unwrap_or(0)
    }

    fn index_of(&self, storage_type: StorageType) -> Option<usize> {
        self.types.iter().position(|&t| t == storage_type)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;

    use super::*;
    use crate::fs::{MemFs, Tiered, Volume};

    fn volumes(list: &[(&str, StorageType)]) -> Volumes {
        let volumes = list
            .iter()
            .map(|(name, t)| Volume::new(*name, format!("/{name}"), *t))
            .collect();
        let policy = Arc::new(Tiered::new(StoragePolicy::Hot, StoragePolicy::AllSsd));
        Volumes::new(Arc::new(MemFs::new()), volumes, policy).unwrap()
    }

    #[test]
    fn one_tier_per_storage_type_in_configuration_order() {
        let v = volumes(&[
            ("ssd0", StorageType::Ssd),
            ("hdd0", StorageType::Hdd),
            ("ssd1", StorageType::Ssd),
        ]);
        let tiers = Tiers::of(&v, true);
        assert_eq!(tiers.len(), 2);
        assert_eq!(tiers.storage_type(1), Some(StorageType::Hdd));
        assert_eq!(tiers.storage_type(2), None);
    }

    #[test]
    fn work_goes_to_the_tier_its_files_are_written_on() {
        let v = volumes(&[("ssd0", StorageType::Ssd), ("hdd0", StorageType::Hdd)]);
        let tiers = Tiers::of(&v, true);
        let flush = FileCategory::Flush;
        assert_eq!(tiers.for_work(&v, flush, &[Some(StoragePolicy::AllSsd)]), 0);
        assert_eq!(tiers.for_work(&v, flush, &[Some(StoragePolicy::Cold)]), 1);
        // The server's policy (HOT: disk) for a family without its own.
        assert_eq!(tiers.for_work(&v, flush, &[None]), 1);
        // Families on both: the slowest, which before any measurement is the last one.
        let mixed = [Some(StoragePolicy::AllSsd), Some(StoragePolicy::Cold)];
        assert_eq!(tiers.for_work(&v, flush, &mixed), 1);
        assert_eq!(tiers.for_work(&v, flush, &[]), 0);
    }

    #[test]
    fn a_single_storage_type_is_one_tier() {
        let v = volumes(&[("a", StorageType::Ssd), ("b", StorageType::Ssd)]);
        let tiers = Tiers::of(&v, true);
        assert_eq!(tiers.len(), 1);
        let cold = [Some(StoragePolicy::Cold)];
        assert_eq!(tiers.for_work(&v, FileCategory::Compaction, &cold), 0);
    }

    #[test]
    fn without_tiers_per_storage_type_all_work_shares_one() {
        let v = volumes(&[("ssd0", StorageType::Ssd), ("hdd0", StorageType::Hdd)]);
        let tiers = Tiers::of(&v, false);
        assert_eq!(tiers.len(), 1);
        let cold = [Some(StoragePolicy::Cold)];
        assert_eq!(tiers.for_work(&v, FileCategory::Flush, &cold), 0);
    }
}
