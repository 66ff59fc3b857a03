//! [`StoragePolicy`]: a named mapping from file category to storage types, in order of
//! preference. HBase's six policies are built in; a server's configuration may define
//! more, over any storage type it defines, since what a site wants where is configuration,
//! not code. A policy is recorded by name (a family's `STORAGE_POLICY` in the catalog), so
//! a name this server does not know still reads: it is kept, and places like `HOT` until
//! the configuration defines it again.

use std::fmt;
use std::str::FromStr;

use parking_lot::RwLock;

use super::{FileCategory, StorageType};
use crate::error::{Error, Result};

/// The most storage policies a configuration may define besides the built-in ones.
pub const MAX_DEFINED: usize = 64;

/// What a policy is: per category, the storage types to use, best first.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct PolicyDef {
    name: &'static str,
    wal: &'static [StorageType],
    flush: &'static [StorageType],
    compaction: &'static [StorageType],
    archive: &'static [StorageType],
    /// Named by a record but not defined here (see the module docs).
    undefined: bool,
}

/// A storage policy. `Copy`; two policies are equal when they say the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StoragePolicy(&'static PolicyDef);

const SSD_FIRST: &[StorageType] = &[StorageType::Ssd, StorageType::Hdd, StorageType::Ram];
const HDD_FIRST: &[StorageType] = &[StorageType::Hdd, StorageType::Ssd, StorageType::Ram];
const RAM_FIRST: &[StorageType] = &[StorageType::Ram, StorageType::Ssd, StorageType::Hdd];

const fn built_in(
    name: &'static str,
    fresh: &'static [StorageType],
    flush: &'static [StorageType],
    old: &'static [StorageType],
) -> PolicyDef {
    PolicyDef {
        name,
        wal: fresh,
        flush,
        compaction: old,
        archive: old,
        undefined: false,
    }
}

static ALL_SSD: PolicyDef = built_in("ALL_SSD", SSD_FIRST, SSD_FIRST, SSD_FIRST);
static ONE_SSD: PolicyDef = built_in("ONE_SSD", SSD_FIRST, SSD_FIRST, HDD_FIRST);
static HOT: PolicyDef = built_in("HOT", HDD_FIRST, HDD_FIRST, HDD_FIRST);
static WARM: PolicyDef = built_in("WARM", HDD_FIRST, SSD_FIRST, HDD_FIRST);
static COLD: PolicyDef = built_in("COLD", HDD_FIRST, HDD_FIRST, HDD_FIRST);
static LAZY_PERSIST: PolicyDef = built_in("LAZY_PERSIST", RAM_FIRST, RAM_FIRST, RAM_FIRST);

static DEFINED: RwLock<Vec<&'static PolicyDef>> = RwLock::new(Vec::new());

#[allow(non_upper_case_globals)] // named like the variants they replaced
impl StoragePolicy {
    /// Everything on SSD.
    pub const AllSsd: StoragePolicy = StoragePolicy(&ALL_SSD);
    /// New data (WAL, flushes) on SSD, compacted and archived data on HDD.
    pub const OneSsd: StoragePolicy = StoragePolicy(&ONE_SSD);
    /// Everything on HDD: HBase's default.
    pub const Hot: StoragePolicy = StoragePolicy(&HOT);
    /// Flushes on SSD, compactions and archives on HDD.
    pub const Warm: StoragePolicy = StoragePolicy(&WARM);
    /// Everything on HDD, SSD only as a last resort.
    pub const Cold: StoragePolicy = StoragePolicy(&COLD);
    /// RAM first (lost on reboot: meant for the WAL of SKIP/ASYNC data), then SSD.
    pub const LazyPersist: StoragePolicy = StoragePolicy(&LAZY_PERSIST);
}

/// The types of one category of a policy being defined.
#[derive(Debug, Clone, Default)]
pub struct PolicyTypes {
    pub wal: Vec<StorageType>,
    pub flush: Vec<StorageType>,
    pub compaction: Vec<StorageType>,
    /// Empty: as `compaction`.
    pub archive: Vec<StorageType>,
}

impl StoragePolicy {
    /// The built-in policies (HBase's), for parsing and listing.
    pub const ALL: [StoragePolicy; 6] = [
        StoragePolicy::AllSsd,
        StoragePolicy::OneSsd,
        StoragePolicy::Hot,
        StoragePolicy::Warm,
        StoragePolicy::Cold,
        StoragePolicy::LazyPersist,
    ];

    /// Defines policy `name` (upper-case letters, digits and `_`; not a built-in name).
    /// Every category needs at least one type; defining the same name again the same way
    /// returns the same policy, another way is refused.
    pub fn define(name: &str, types: PolicyTypes) -> Result<StoragePolicy> {
        check_name(name)?;
        let archive = if types.archive.is_empty() {
            types.compaction.clone()
        } else {
            types.archive
        };
        let lists = [&types.wal, &types.flush, &types.compaction, &archive];
        if lists.iter().any(|l| l.is_empty()) {
            return Err(Error::InvalidArgument(format!(
                "storage policy {name}: wal, flush and compaction each need a storage type"
            )));
        }
        let mut defined = DEFINED.write();
        if let Some(known) = defined.iter().find(|d| d.name == name) {
            let same = known.wal == types.wal.as_slice()
                && known.flush == types.flush.as_slice()
                && known.compaction == types.compaction.as_slice()
                && known.archive == archive.as_slice();
            return match (same, known.undefined) {
                (true, false) => Ok(StoragePolicy(known)),
                _ => Err(Error::InvalidArgument(format!(
                    "storage policy {name} is already defined otherwise"
                ))),
            };
        }
        if defined.len() >= MAX_DEFINED {
            return Err(Error::InvalidArgument(format!(
                "at most {MAX_DEFINED} storage policies may be defined"
            )));
        }
        let def = leak(PolicyDef {
            name: leak_str(name),
            wal: leak_slice(types.wal),
            flush: leak_slice(types.flush),
            compaction: leak_slice(types.compaction),
            archive: leak_slice(archive),
            undefined: false,
        });
        defined.push(def);
        Ok(StoragePolicy(def))
    }

    /// The policy a record names: a known one, or (for a name this configuration does not
    /// define) a stand-in that keeps the name and places like `HOT`, with a warning.
    pub fn named(name: &str) -> Result<StoragePolicy> {
        if let Ok(known) = name.parse() {
            return Ok(known);
        }
        check_name(name)?;
        let mut defined = DEFINED.write();
        if let Some(known) = defined.iter().find(|d| d.name == name) {
            return Ok(StoragePolicy(known));
        }
        if defined.len() >= MAX_DEFINED {
            return Err(Error::InvalidArgument(format!(
                "storage policy {name} is not defined here"
            )));
        }
        tracing::warn!(policy = name, "a family names a storage policy this server's configuration does not define; its files are placed as HOT until it is defined");
        let def = leak(PolicyDef {
            name: leak_str(name),
            undefined: true,
            ..built_in("", HDD_FIRST, HDD_FIRST, HDD_FIRST)
        });
        defined.push(def);
        Ok(StoragePolicy(def))
    }

    /// Its name, e.g. `ALL_SSD`.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The storage types a new `category` file may go to, best first. The tail is the
    /// fallback used when the preferred types have no volume.
    pub fn storage_types(self, category: FileCategory) -> &'static [StorageType] {
        match category {
            FileCategory::Wal => self.0.wal,
            FileCategory::Flush => self.0.flush,
            FileCategory::Compaction => self.0.compaction,
            FileCategory::Archive => self.0.archive,
        }
    }

    /// The type this policy wants first for `category`.
    pub fn preferred(self, category: FileCategory) -> StorageType {
        self.storage_types(category)
            .first()
            .copied()
            .unwrap_or_default()
    }
}

impl Default for StoragePolicy {
    fn default() -> Self {
        StoragePolicy::Hot
    }
}

impl fmt::Display for StoragePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StoragePolicy {
    type Err = Error;

    /// A built-in name in any case (`ALL_SSD`, `one_ssd`), or a defined one.
    fn from_str(s: &str) -> Result<Self> {
        if let Some(p) = StoragePolicy::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
        {
            return Ok(p);
        }
        let upper = s.to_ascii_uppercase();
        if let Some(def) = DEFINED
            .read()
            .iter()
            .find(|d| d.name == upper && !d.undefined)
        {
            return Ok(StoragePolicy(def));
        }
        let names: Vec<_> = StoragePolicy::ALL.iter().map(|p| p.name()).collect();
        Err(Error::InvalidArgument(format!(
            "unknown storage policy {s:?} (one of {}, or one defined in [[storage_policies]])",
            names.join(", ")
        )))
    }
}

fn check_name(name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    if !valid {
        return Err(Error::InvalidArgument(format!(
            "storage policy name {name:?}: use 1 to 64 upper-case letters, digits or _"
        )));
    }
    if StoragePolicy::ALL.iter().any(|p| p.name() == name) {
        return Err(Error::InvalidArgument(format!(
            "storage policy {name} is built in; pick another name"
        )));
    }
    Ok(())
}

// Policies are `Copy` handles to definitions that live as long as the process; the
// configuration bounds how many there are (MAX_DEFINED), so leaking them is bounded.
fn leak(def: PolicyDef) -> &'static PolicyDef {
    Box::leak(Box::new(def))
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn leak_slice(types: Vec<StorageType>) -> &'static [StorageType] {
    Box::leak(types.into_boxed_slice())
}

#[cfg(test)]
mod tests;
