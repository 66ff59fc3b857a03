//! `[[storage_types]]` and `[[storage_policies]]`: storage types and policies a site defines
//! beyond the built-in ones (docs/operations.md, "Fast and slow devices"). They are defined
//! before anything else of the configuration is read, so volumes, `[tiers.*]`, the mover's
//! rules and `storage_policy` may name them, as may families' `STORAGE_POLICY`.

use serde::Deserialize;
use strata_engine::fs::{PolicyTypes, StoragePolicy, StorageType};

/// One `[[storage_types]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageTypeConfig {
    /// Lower-case letters, digits and `_` (`nvme`, `cold_hdd`).
    pub name: String,
    /// Files on it are lost on reboot (a RAM disk); default false.
    #[serde(default)]
    pub volatile: bool,
}

/// One `[[storage_policies]]` table: per kind of file, storage types best first.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoragePolicyConfig {
    /// Upper-case letters, digits and `_` (`FAST_LOG`).
    pub name: String,
    pub wal: Vec<String>,
    pub flush: Vec<String>,
    pub compaction: Vec<String>,
    /// Default: as `compaction`.
    #[serde(default)]
    pub archive: Vec<String>,
}

/// Defines every configured type, then every policy (which may name those types).
pub fn define(types: &[StorageTypeConfig], policies: &[StoragePolicyConfig]) -> Result<(), String> {
    for t in types {
        StorageType::define(&t.name, t.volatile)
            .map_err(|e| format!("[[storage_types]] name = {:?}: {e}", t.name))?;
    }
    for p in policies {
        let context = |e: String| format!("[[storage_policies]] name = {:?}: {e}", p.name);
        let parsed = |names: &[String]| -> Result<Vec<StorageType>, String> {
            names
                .iter()
                .map(|n| n.parse().map_err(|e: strata_engine::Error| e.to_string()))
                .collect()
        };
        let types = PolicyTypes {
            wal: parsed(&p.wal).map_err(context)?,
            flush: parsed(&p.flush).map_err(context)?,
            compaction: parsed(&p.compaction).map_err(context)?,
            archive: parsed(&p.archive).map_err(context)?,
        };
        StoragePolicy::define(&p.name, types).map_err(|e| context(e.to_string()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use strata_engine::fs::FileCategory;

    use super::*;

    #[test]
    fn defined_types_and_policies_can_be_named_afterwards() {
        let types = vec![StorageTypeConfig {
            name: "cfg_nvme".into(),
            volatile: false,
        }];
        let policies = vec![StoragePolicyConfig {
            name: "CFG_FAST".into(),
            wal: vec!["cfg_nvme".into()],
            flush: vec!["cfg_nvme".into(), "ssd".into()],
            compaction: vec!["hdd".into()],
            archive: Vec::new(),
        }];
        define(&types, &policies).unwrap();
        let policy: StoragePolicy = "CFG_FAST".parse().unwrap();
        let nvme: StorageType = "cfg_nvme".parse().unwrap();
        assert_eq!(policy.preferred(FileCategory::Wal), nvme);
        assert_eq!(policy.preferred(FileCategory::Archive), StorageType::Hdd);
    }

    #[test]
    fn a_policy_naming_an_undefined_type_is_refused_with_its_name() {
        let policies = vec![StoragePolicyConfig {
            name: "CFG_BROKEN".into(),
            wal: vec!["tape".into()],
            flush: vec!["ssd".into()],
            compaction: vec!["ssd".into()],
            archive: Vec::new(),
        }];
        let err = define(&[], &policies).unwrap_err();
        assert!(err.contains("CFG_BROKEN") && err.contains("tape"), "{err}");
    }
}
