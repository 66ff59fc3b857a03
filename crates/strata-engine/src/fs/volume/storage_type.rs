//! [`StorageType`]: the kind of device behind a volume. Three are built in (`ram`, `ssd`,
//! `hdd`, HDFS's names); a server's configuration may define more (`nvme`, `archive_hdd`),
//! each with its own properties, since which devices a site has is configuration, not
//! code (the HSM report in the seeds lists a fixed set of storage types as a flaw).
//!
//! A type is a name: `Copy` and cheap to compare, so placement and statistics pass it
//! around freely. A defined type's name is stored once for the life of the process (the
//! set is bounded by the configuration: [`MAX_DEFINED`]).

use std::fmt;
use std::str::FromStr;

use parking_lot::RwLock;

use crate::error::{Error, Result};

/// The most storage types a configuration may define besides the built-in ones.
pub const MAX_DEFINED: usize = 32;

/// The kind of device behind a volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StorageType(&'static str);

/// What a defined type says about its devices.
#[derive(Debug, Clone, Copy)]
struct Defined {
    name: &'static str,
    /// Its files are lost on reboot (a RAM disk).
    volatile: bool,
}

static DEFINED: RwLock<Vec<Defined>> = RwLock::new(Vec::new());

#[allow(non_upper_case_globals)] // named like the variants they replaced
impl StorageType {
    /// A RAM disk (tmpfs): fast and lost on reboot.
    pub const Ram: StorageType = StorageType("ram");
    /// A solid-state drive.
    pub const Ssd: StorageType = StorageType("ssd");
    /// A spinning disk.
    pub const Hdd: StorageType = StorageType("hdd");
}

impl StorageType {
    /// The built-in types.
    pub const BUILT_IN: [StorageType; 3] = [StorageType::Ram, StorageType::Ssd, StorageType::Hdd];

    /// Defines a storage type `name` (lower-case letters, digits and `_`, up to 32 bytes;
    /// not a built-in name). Defining the same name again with the same properties returns
    /// the same type; with other properties it is refused.
    pub fn define(name: &str, volatile: bool) -> Result<StorageType> {
        let valid = !name.is_empty()
            && name.len() <= 32
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !valid {
            return Err(Error::InvalidArgument(format!(
                "storage type name {name:?}: use 1 to 32 lower-case letters, digits or _"
            )));
        }
        if StorageType::BUILT_IN.iter().any(|t| t.0 == name) {
            return Err(Error::InvalidArgument(format!(
                "storage type {name:?} is built in; pick another name"
            )));
        }
        let mut defined = DEFINED.write();
        if let Some(known) = defined.iter().find(|d| d.name == name) {
            if known.volatile != volatile {
                return Err(Error::InvalidArgument(format!(
                    "storage type {name:?} is already defined with other properties"
                )));
            }
            return Ok(StorageType(known.name));
        }
        if defined.len() >= MAX_DEFINED {
            return Err(Error::InvalidArgument(format!(
                "at most {MAX_DEFINED} storage types may be defined"
            )));
        }
        // Stored for the life of the process: a type is `Copy` and names are few
        // (MAX_DEFINED), so a leak bounded by the configuration buys that.
        let name: &'static str = Box::leak(name.to_string().into_boxed_str());
        defined.push(Defined { name, volatile });
        Ok(StorageType(name))
    }

    /// Its name, as configuration and statistics write it.
    pub fn name(self) -> &'static str {
        self.0
    }

    /// True if its files are lost on reboot (`ram`, or a defined type said so).
    pub fn is_volatile(self) -> bool {
        self == StorageType::Ram
            || DEFINED
                .read()
                .iter()
                .any(|d| d.name == self.0 && d.volatile)
    }
}

impl Default for StorageType {
    fn default() -> Self {
        StorageType::Ssd
    }
}

impl fmt::Display for StorageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl FromStr for StorageType {
    type Err = Error;

    /// A built-in name (any case) or a defined one.
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.to_ascii_lowercase();
        if let Some(built_in) = StorageType::BUILT_IN.iter().find(|t| t.0 == lower) {
            return Ok(*built_in);
        }
        DEFINED
            .read()
            .iter()
            .find(|d| d.name == lower)
            .map(|d| StorageType(d.name))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown storage type {s:?} (ram, ssd, hdd, or one defined in [[storage_types]])"
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_types_parse_in_any_case() {
        assert_eq!("SSD".parse::<StorageType>().unwrap(), StorageType::Ssd);
        assert_eq!("hdd".parse::<StorageType>().unwrap(), StorageType::Hdd);
        assert!(StorageType::Ram.is_volatile() && !StorageType::Ssd.is_volatile());
    }

    #[test]
    fn defined_types_parse_and_keep_their_properties() {
        let nvme = StorageType::define("test_nvme", false).unwrap();
        assert_eq!("TEST_NVME".parse::<StorageType>().unwrap(), nvme);
        assert_eq!(nvme.name(), "test_nvme");
        assert!(!nvme.is_volatile());
        assert_eq!(StorageType::define("test_nvme", false).unwrap(), nvme);
        assert!(StorageType::define("test_nvme", true).is_err());
        let pmem = StorageType::define("test_pmem", true).unwrap();
        assert!(pmem.is_volatile());
    }

    #[test]
    fn bad_or_built_in_names_are_refused() {
        for bad in ["", "ssd", "Upper", "has space", &"x".repeat(33)] {
            assert!(StorageType::define(bad, false).is_err(), "{bad:?}");
        }
        assert!("never_defined".parse::<StorageType>().is_err());
    }
}
