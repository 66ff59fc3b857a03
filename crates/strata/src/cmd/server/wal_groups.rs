//! `[engine] wal_groups`: several WALs (HBase's `multiwal` with
//! `hbase.wal.regiongrouping.numgroups`). A number of groups, or `"per_volume"` for one
//! group per volume of the WAL's storage type (`wal_storage_policy`).

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use strata_engine::{EngineOptions, WalGroupCount};

/// The key's value as written in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalGroupsSetting(pub WalGroupCount);

const EXPECTED: &str = "a number of WAL groups (1 to 64) or \"per_volume\"";

impl<'de> Deserialize<'de> for WalGroupsSetting {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SettingVisitor)
    }
}

struct SettingVisitor;

impl Visitor<'_> for SettingVisitor {
    type Value = WalGroupsSetting;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        let in_range = usize::try_from(v)
            .ok()
            .filter(|n| (1..=WalGroupCount::MAX).contains(n));
        match in_range {
            Some(n) => Ok(WalGroupsSetting(WalGroupCount::Fixed(n))),
            None => Err(E::invalid_value(de::Unexpected::Signed(v), &EXPECTED)),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        match i64::try_from(v) {
            Ok(v) => self.visit_i64(v),
            Err(_) => Err(E::invalid_value(de::Unexpected::Unsigned(v), &EXPECTED)),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match v {
            "per_volume" => Ok(WalGroupsSetting(WalGroupCount::PerVolume)),
            _ => Err(E::invalid_value(de::Unexpected::Str(v), &EXPECTED)),
        }
    }
}

/// Sets the engine's group count from the key, when given.
pub fn apply(setting: Option<WalGroupsSetting>, engine: &mut EngineOptions) {
    if let Some(WalGroupsSetting(groups)) = setting {
        engine.wal.groups = groups;
    }
}

/// Cluster mode's WAL is one object stream per server, sectioned by region: groups are a
/// local-disk matter, so a cluster server refuses the key rather than ignore it silently.
pub fn refuse_in_cluster_mode(engine: &EngineOptions) -> Result<(), String> {
    if engine.wal.groups == WalGroupCount::Fixed(1) {
        return Ok(());
    }
    Err(
        "[engine] wal_groups is for the local WAL only: in cluster mode each server's WAL \
         is one object stream; remove the key"
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::config::{FileConfig, ServerConfig};
    use super::*;

    fn groups_of(text: &str) -> Result<WalGroupCount, String> {
        let file: FileConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        let config = ServerConfig::from_file(file)?;
        Ok(config.service.engine.wal.groups)
    }

    #[test]
    fn the_wal_groups_key_is_read() {
        assert_eq!(groups_of(""), Ok(WalGroupCount::Fixed(1)));
        let four = groups_of("[engine]\nwal_groups = 4\n");
        assert_eq!(four, Ok(WalGroupCount::Fixed(4)));
        let per_volume = groups_of("[engine]\nwal_groups = \"per_volume\"\n");
        assert_eq!(per_volume, Ok(WalGroupCount::PerVolume));
        for bad in ["0", "65", "-1", "\"many\"", "1.5"] {
            let err = groups_of(&format!("[engine]\nwal_groups = {bad}\n")).unwrap_err();
            assert!(err.contains("wal_groups"), "{bad}: {err}");
        }
    }

    #[test]
    fn cluster_mode_refuses_wal_groups() {
        let mut engine = EngineOptions::new("unused");
        assert!(refuse_in_cluster_mode(&engine).is_ok());
        engine.wal.groups = WalGroupCount::Fixed(2);
        let err = refuse_in_cluster_mode(&engine).unwrap_err();
        assert!(err.contains("wal_groups"), "{err}");
    }
}
