//! The placement that follows storage policies (`storage_policy.rs`): each file category
//! maps to an ordered list of storage types, and the first type that has a volume wins. Within a type, volumes take turns (one counter per type, so a busy type does not
//! skew another's rotation, as a single shared counter did in HDFS-9608).

use std::collections::HashMap;

use parking_lot::Mutex;

use super::{FileCategory, PlacementPolicy, StoragePolicy, StorageType, Volume};

/// Places WAL segments by `wal` and every other category by `data`, rotating over the
/// volumes of the chosen storage type.
#[derive(Debug, Default)]
pub struct Tiered {
    data: StoragePolicy,
    wal: StoragePolicy,
    /// The next volume to use, per storage type.
    turns: Mutex<HashMap<StorageType, usize>>,
}

impl Tiered {
    /// Data files by `data`, WAL segments by `wal`.
    pub fn new(data: StoragePolicy, wal: StoragePolicy) -> Self {
        Tiered {
            data,
            wal,
            turns: Default::default(),
        }
    }

    fn policy_for(&self, category: FileCategory) -> StoragePolicy {
        match category {
            FileCategory::Wal => self.wal,
            _ => self.data,
        }
    }
}

impl Tiered {
    /// The first volume (taking turns) of the first of `policy`'s types that has one.
    fn choose_by(
        &self,
        policy: StoragePolicy,
        category: FileCategory,
        volumes: &[Volume],
    ) -> usize {
        policy
            .storage_types(category)
            .iter()
            .find_map(|&storage_type| self.next_of_type(storage_type, volumes))
            .unwrap_or(0)
    }

    /// The next volume of `storage_type` in its own turn order, if there is one.
    fn next_of_type(&self, storage_type: StorageType, volumes: &[Volume]) -> Option<usize> {
        let of_type: Vec<usize> = (0..volumes.len())
            .filter(|&i| volumes[i].storage_type == storage_type)
            .collect();
        if of_type.is_empty() {
            return None;
        }
        let turn = {
            let mut turns = self.turns.lock();
            let next = turns.entry(storage_type).or_insert(0);
            let turn = *next;
            *next = next.wrapping_add(1);
            turn
        };
        Some(of_type[turn % of_type.len()])
    }
}

impl PlacementPolicy for Tiered {
    fn choose(&self, category: FileCategory, volumes: &[Volume]) -> usize {
        self.choose_by(self.policy_for(category), category, volumes)
    }

    /// The family's policy places its data files; WAL segments are shared by every family
    /// and stay with the server's WAL policy.
    fn choose_for_family(
        &self,
        category: FileCategory,
        family_policy: StoragePolicy,
        volumes: &[Volume],
    ) -> usize {
        let policy = match category {
            FileCategory::Wal => self.wal,
            _ => family_policy,
        };
        self.choose_by(policy, category, volumes)
    }

    fn preferred_type(
        &self,
        category: FileCategory,
        family_policy: Option<StoragePolicy>,
        volumes: &[Volume],
    ) -> Option<StorageType> {
        let policy = match (category, family_policy) {
            (FileCategory::Wal, _) | (_, None) => self.policy_for(category),
            (_, Some(family)) => family,
        };
        policy
            .storage_types(category)
            .iter()
            .copied()
            .find(|&t| volumes.iter().any(|v| v.storage_type == t))
    }

    fn choose_of_type(&self, storage_type: StorageType, volumes: &[Volume]) -> Option<usize> {
        self.next_of_type(storage_type, volumes)
    }
}
