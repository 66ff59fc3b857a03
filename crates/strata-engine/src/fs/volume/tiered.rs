//! Storage policies with HBase's names, and the placement that follows them: each file
//! category maps to an ordered list of storage types, and the first type that has a volume
//! wins. Within a type, volumes take turns (one counter per type, so a busy type does not
//! skew another's rotation, as a single shared counter did in HDFS-9608).

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{FileCategory, PlacementPolicy, StorageType, Volume};
use crate::error::{Error, Result};

/// A named mapping from file category to storage types, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StoragePolicy {
    /// Everything on SSD.
    AllSsd,
    /// New data (WAL, flushes) on SSD, compacted and archived data on HDD.
    OneSsd,
    /// Everything on HDD: HBase's default.
    #[default]
    Hot,
    /// Flushes on SSD, compactions and archives on HDD.
    Warm,
    /// Everything on HDD, SSD only as a last resort.
    Cold,
    /// RAM first (lost on reboot: meant for the WAL of SKIP/ASYNC data), then SSD.
    LazyPersist,
}

use StorageType::{Hdd, Ram, Ssd};

impl StoragePolicy {
    /// Every policy, for parsing and listing.
    pub const ALL: [StoragePolicy; 6] = [
        StoragePolicy::AllSsd,
        StoragePolicy::OneSsd,
        StoragePolicy::Hot,
        StoragePolicy::Warm,
        StoragePolicy::Cold,
        StoragePolicy::LazyPersist,
    ];

    /// HBase's upper-case name, e.g. `ALL_SSD`.
    pub fn name(self) -> &'static str {
        match self {
            StoragePolicy::AllSsd => "ALL_SSD",
            StoragePolicy::OneSsd => "ONE_SSD",
            StoragePolicy::Hot => "HOT",
            StoragePolicy::Warm => "WARM",
            StoragePolicy::Cold => "COLD",
            StoragePolicy::LazyPersist => "LAZY_PERSIST",
        }
    }

    /// The storage types a new `category` file may go to, best first. The tail is the
    /// fallback used when the preferred types have no volume.
    pub fn storage_types(self, category: FileCategory) -> &'static [StorageType] {
        let fresh = matches!(category, FileCategory::Wal | FileCategory::Flush);
        match self {
            StoragePolicy::AllSsd => &[Ssd, Hdd, Ram],
            StoragePolicy::OneSsd if fresh => &[Ssd, Hdd, Ram],
            StoragePolicy::Warm if category == FileCategory::Flush => &[Ssd, Hdd, Ram],
            StoragePolicy::OneSsd | StoragePolicy::Hot | StoragePolicy::Warm => &[Hdd, Ssd, Ram],
            StoragePolicy::Cold => &[Hdd, Ssd, Ram],
            StoragePolicy::LazyPersist => &[Ram, Ssd, Hdd],
        }
    }

    /// The type this policy wants first for `category`.
    pub fn preferred(self, category: FileCategory) -> StorageType {
        self.storage_types(category)[0]
    }
}

impl fmt::Display for StoragePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StoragePolicy {
    type Err = Error;

    /// Case-insensitive HBase name (`ALL_SSD`, `one_ssd`, ...).
    fn from_str(s: &str) -> Result<Self> {
        StoragePolicy::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names: Vec<_> = StoragePolicy::ALL.iter().map(|p| p.name()).collect();
                let msg = format!("unknown storage policy {s:?} (one of {})", names.join(", "));
                Error::InvalidArgument(msg)
            })
    }
}

/// Places WAL segments by `wal` and every other category by `data`, rotating over the
/// volumes of the chosen storage type.
#[derive(Debug, Default)]
pub struct Tiered {
    data: StoragePolicy,
    wal: StoragePolicy,
    /// The next volume to use, per storage type (indexed by [`type_slot`]).
    turns: [AtomicUsize; 3],
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

fn type_slot(storage_type: StorageType) -> usize {
    match storage_type {
        Ram => 0,
        Ssd => 1,
        Hdd => 2,
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
        let turn = self.turns[type_slot(storage_type)].fetch_add(1, Ordering::Relaxed);
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
