//! The `[[volumes]]` tables and the storage policy keys: which directories hold data, on
//! what kind of device, and which device each kind of file prefers (docs/operations.md,
//! "Fast and slow devices").

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use strata_engine::fs::{
    FileCategory, FileSystem, LocalFs, StoragePolicy, StorageType, TierSettings, TierSettingsMap,
    Tiered, Volume,
};
use strata_engine::EngineOptions;

/// One `[[volumes]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeConfig {
    pub path: PathBuf,
    /// `ram`, `ssd` or `hdd`.
    pub storage_type: String,
    /// The name metadata records; defaults to the path, so naming a volume lets it move.
    pub name: Option<String>,
    /// Benchmarks and tests only: every write and sync on this volume waits this long
    /// (`injected_latency.rs`); unset or 0 is none.
    pub inject_latency_ms: Option<u64>,
}

/// One `[tiers.<storage type>]` table: what files written on that type's volumes use.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierConfig {
    /// `none`, `lz4`, `zstd`, `snappy` or `gz` (HBase's names, any case).
    pub compression: Option<String>,
    /// Data block size in KiB.
    pub block_size_kb: Option<u64>,
}

/// `[mover]`: moving existing files when a storage policy changes or files age.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoverConfig {
    /// Seconds between passes (default 60; 0 turns the mover off).
    pub interval_s: Option<u64>,
    /// Copy rate in MiB/s (default 32; 0 = unlimited).
    pub mb_per_sec: Option<u64>,
    /// Files older than this many hours go to `age_storage_type` (Bigtable's age-based
    /// tiering); unset: no age rule.
    pub age_hours: Option<u64>,
    /// `ram`, `ssd` or `hdd` (default `hdd`).
    pub age_storage_type: Option<String>,
    /// Files of at least this many MiB (large compaction outputs) go to
    /// `large_storage_type`; unset: no size rule.
    pub large_file_mb: Option<u64>,
    /// `ram`, `ssd` or `hdd` (default `hdd`).
    pub large_storage_type: Option<String>,
}

impl MoverConfig {
    /// Sets the engine's move rules and rate; returns the interval between passes.
    pub fn apply(&self, engine: &mut EngineOptions) -> Result<Option<std::time::Duration>, String> {
        if let Some(hours) = self.age_hours {
            let name = self.age_storage_type.as_deref().unwrap_or("hdd");
            let storage_type: StorageType = name
                .parse()
                .map_err(|e| format!("[mover] age_storage_type: {e}"))?;
            let age = std::time::Duration::from_secs(hours.saturating_mul(3600));
            engine.move_rules.age = Some((age, storage_type));
        }
        if let Some(mb) = self.large_file_mb {
            let name = self.large_storage_type.as_deref().unwrap_or("hdd");
            let storage_type: StorageType = name
                .parse()
                .map_err(|e: strata_engine::Error| format!("[mover] large_storage_type: {e}"))?;
            engine.move_rules.size = Some((mb.saturating_mul(1 << 20), storage_type));
        }
        if let Some(mb) = self.mb_per_sec {
            engine.mover_bytes_per_sec = (mb > 0).then_some(mb.saturating_mul(1 << 20));
        }
        Ok(match self.interval_s.unwrap_or(60) {
            0 => None,
            s => Some(std::time::Duration::from_secs(s)),
        })
    }
}

/// The volume and policy keys of the configuration file.
#[derive(Debug, Default, Clone)]
pub struct TieringConfig {
    pub volumes: Vec<VolumeConfig>,
    pub storage_policy: Option<String>,
    pub wal_storage_policy: Option<String>,
    pub tiers: std::collections::BTreeMap<String, TierConfig>,
}

/// `engine.tier_settings` from the `[tiers.*]` tables, every name and value checked.
pub fn tier_settings(
    tiers: &std::collections::BTreeMap<String, TierConfig>,
) -> Result<TierSettingsMap, String> {
    let mut out = TierSettingsMap::new();
    for (name, tier) in tiers {
        let storage_type: StorageType = name
            .parse()
            .map_err(|e: strata_engine::Error| format!("[tiers.{name}]: {e}"))?;
        let compression = tier
            .compression
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e| format!("[tiers.{name}] compression: {e}"))?;
        let block_size = match tier.block_size_kb {
            Some(kb) if !(1..=16 * 1024).contains(&kb) => {
                return Err(format!("[tiers.{name}] block_size_kb must be 1 to 16384"))
            }
            Some(kb) => Some(usize::try_from(kb * 1024).map_err(|e| e.to_string())?),
            None => None,
        };
        out.insert(
            storage_type,
            TierSettings {
                compression,
                block_size,
            },
        );
    }
    Ok(out)
}

/// The name the data directory's volume has always had: existing files stay readable.
const DEFAULT_VOLUME: &str = "default";

impl TieringConfig {
    /// Nothing configured: the engine's single data directory, as before volumes existed.
    fn is_default(&self) -> bool {
        self.volumes.is_empty()
            && self.storage_policy.is_none()
            && self.wal_storage_policy.is_none()
    }

    /// Sets `engine.volumes` and `engine.placement`; the data directory is always the first
    /// volume (store manifests live there), typed by a `[[volumes]]` entry with its path.
    pub fn apply(&self, data_dir: &Path, engine: &mut EngineOptions) -> Result<(), String> {
        engine.tier_settings = tier_settings(&self.tiers)?;
        if self.is_default() {
            return Ok(());
        }
        let volumes = self.volumes(data_dir)?;
        let data = parse_policy("storage_policy", self.storage_policy.as_deref())?;
        let wal = parse_policy("wal_storage_policy", self.wal_storage_policy.as_deref())?;
        if let Some(policy) = data {
            require_type("storage_policy", policy, FileCategory::Flush, &volumes)?;
            require_type("storage_policy", policy, FileCategory::Compaction, &volumes)?;
        }
        if let Some(policy) = wal {
            require_type("wal_storage_policy", policy, FileCategory::Wal, &volumes)?;
        }
        let data = data.unwrap_or_default();
        engine.placement = Some(Arc::new(Tiered::new(data, wal.unwrap_or(data))));
        engine.volumes = volumes;
        Ok(())
    }

    /// The data directory first, then every other `[[volumes]]` entry, each checked and
    /// its directory created.
    fn volumes(&self, data_dir: &Path) -> Result<Vec<Volume>, String> {
        let mut out = vec![Volume::new(DEFAULT_VOLUME, data_dir, StorageType::Ssd)];
        for (i, entry) in self.volumes.iter().enumerate() {
            let storage_type: StorageType = entry
                .storage_type
                .parse()
                .map_err(|e: strata_engine::Error| volume_error(entry, &e.to_string()))?;
            if self.volumes[..i].iter().any(|v| v.path == entry.path) {
                return Err(volume_error(entry, "duplicate path"));
            }
            if entry.path == data_dir {
                out[0].storage_type = storage_type;
                continue;
            }
            let name = entry
                .name
                .clone()
                .unwrap_or_else(|| entry.path.display().to_string());
            if out.iter().any(|v| v.name == name) {
                return Err(volume_error(entry, &format!("duplicate name {name:?}")));
            }
            LocalFs
                .create_dir_all(&entry.path)
                .map_err(|e| volume_error(entry, &format!("cannot create the directory: {e}")))?;
            out.push(Volume::new(name, &entry.path, storage_type));
        }
        Ok(out)
    }
}

fn volume_error(entry: &VolumeConfig, why: &str) -> String {
    format!(
        "[[volumes]] path = {:?}: {why}",
        entry.path.display().to_string()
    )
}

fn parse_policy(key: &str, value: Option<&str>) -> Result<Option<StoragePolicy>, String> {
    value
        .map(|v| v.parse().map_err(|e| format!("{key}: {e}")))
        .transpose()
}

/// An explicitly configured policy must find its first choice: falling back silently would
/// hide a typo in a volume's storage type.
fn require_type(
    key: &str,
    policy: StoragePolicy,
    category: FileCategory,
    volumes: &[Volume],
) -> Result<(), String> {
    let wanted = policy.preferred(category);
    if volumes.iter().any(|v| v.storage_type == wanted) {
        return Ok(());
    }
    Err(format!(
        "{key} = \"{policy}\" puts {category} files on {wanted}, but no volume has storage_type = \"{wanted}\""
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiering(toml_volumes: &str, policy: Option<&str>, wal: Option<&str>) -> TieringConfig {
        #[derive(Deserialize)]
        struct File {
            #[serde(default)]
            volumes: Vec<VolumeConfig>,
        }
        let file: File = toml::from_str(toml_volumes).unwrap();
        TieringConfig {
            volumes: file.volumes,
            storage_policy: policy.map(str::to_string),
            wal_storage_policy: wal.map(str::to_string),
            tiers: Default::default(),
        }
    }

    fn apply(config: &TieringConfig, data_dir: &Path) -> Result<EngineOptions, String> {
        let mut engine = EngineOptions::new(data_dir);
        config.apply(data_dir, &mut engine).map(|()| engine)
    }

    #[test]
    fn no_volume_keys_leave_the_single_data_directory() {
        let engine = apply(&TieringConfig::default(), Path::new("d")).unwrap();
        assert!(engine.volumes.is_empty());
        assert!(engine.placement.is_none());
    }

    #[test]
    fn volumes_are_typed_named_and_created() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let hdd = tmp.path().join("hdd");
        let text = format!(
            "[[volumes]]\npath = {data:?}\nstorage_type = \"ssd\"\n\
             [[volumes]]\npath = {hdd:?}\nstorage_type = \"HDD\"\nname = \"hdd0\"\n"
        );
        let config = tiering(&text, Some("COLD"), Some("all_ssd"));
        let engine = apply(&config, &data).unwrap();
        let summary: Vec<_> = engine
            .volumes
            .iter()
            .map(|v| (v.name.as_str(), v.storage_type))
            .collect();
        assert_eq!(
            summary,
            [("default", StorageType::Ssd), ("hdd0", StorageType::Hdd)]
        );
        assert!(hdd.is_dir());
        assert!(engine.placement.is_some());
    }

    #[test]
    fn bad_volumes_and_policies_are_refused_with_the_reason() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let hdd = tmp.path().join("hdd");
        let one = |ty: &str| format!("[[volumes]]\npath = {hdd:?}\nstorage_type = {ty:?}\n");
        let err = apply(&tiering(&one("nvme"), None, None), &data).unwrap_err();
        assert!(err.contains("unknown storage type \"nvme\""), "{err}");
        let twice = format!("{}{}", one("hdd"), one("ssd"));
        let err = apply(&tiering(&twice, None, None), &data).unwrap_err();
        assert!(err.contains("duplicate path"), "{err}");
        let err = apply(&tiering(&one("hdd"), Some("FAST"), None), &data).unwrap_err();
        assert!(err.contains("unknown storage policy"), "{err}");
        let err = apply(&tiering(&one("hdd"), None, Some("LAZY_PERSIST")), &data).unwrap_err();
        assert!(
            err.contains("no volume has storage_type = \"ram\""),
            "{err}"
        );
        let file = tmp.path().join("a-file");
        LocalFs.create(&file).unwrap();
        let under_file = format!(
            "[[volumes]]\npath = {:?}\nstorage_type = \"hdd\"\n",
            file.join("x")
        );
        let err = apply(&tiering(&under_file, None, None), &data).unwrap_err();
        assert!(err.contains("cannot create the directory"), "{err}");
    }

    #[test]
    fn tier_tables_set_compression_and_block_size_and_bad_ones_are_refused() {
        #[derive(Deserialize)]
        struct File {
            tiers: std::collections::BTreeMap<String, TierConfig>,
        }
        let parse = |text: &str| tier_settings(&toml::from_str::<File>(text).unwrap().tiers);
        let tiers = parse(
            "[tiers.hdd]\ncompression = \"zstd\"\nblock_size_kb = 64\n[tiers.RAM]\ncompression = \"none\"\n",
        )
        .unwrap();
        let hdd = tiers[&StorageType::Hdd];
        assert_eq!(hdd.compression, Some(strata_engine::Compression::Zstd));
        assert_eq!(hdd.block_size, Some(64 * 1024));
        assert_eq!(
            tiers[&StorageType::Ram].compression,
            Some(strata_engine::Compression::None)
        );
        assert!(parse("[tiers.tape]\ncompression = \"zstd\"\n")
            .unwrap_err()
            .contains("tape"));
        assert!(parse("[tiers.ssd]\ncompression = \"brotli\"\n")
            .unwrap_err()
            .contains("brotli"));
        assert!(parse("[tiers.ssd]\nblock_size_kb = 0\n")
            .unwrap_err()
            .contains("block_size_kb"));
    }

    #[test]
    fn the_mover_table_sets_the_age_rule_rate_and_interval() {
        let mover: MoverConfig = toml::from_str(
            "age_hours = 24\nmb_per_sec = 8\ninterval_s = 30\nlarge_file_mb = 512\n",
        )
        .unwrap();
        let mut engine = EngineOptions::new("d");
        let interval = mover.apply(&mut engine).unwrap();
        assert_eq!(interval, Some(std::time::Duration::from_secs(30)));
        assert_eq!(
            engine.move_rules.age,
            Some((std::time::Duration::from_secs(24 * 3600), StorageType::Hdd))
        );
        assert_eq!(engine.mover_bytes_per_sec, Some(8 << 20));
        assert_eq!(engine.move_rules.size, Some((512 << 20, StorageType::Hdd)));
        let off: MoverConfig = toml::from_str("interval_s = 0\n").unwrap();
        assert_eq!(off.apply(&mut EngineOptions::new("d")).unwrap(), None);
        let bad: MoverConfig =
            toml::from_str("age_hours = 1\nage_storage_type = \"tape\"\n").unwrap();
        assert!(bad
            .apply(&mut EngineOptions::new("d"))
            .unwrap_err()
            .contains("tape"));
    }
}
