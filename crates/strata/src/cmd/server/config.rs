//! `strata server` settings: defaults, then the TOML file given with `--config`, then flags.
//! Every setting is documented in README.md ("Configuration").

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use strata_engine::EngineOptions;
use strata_server::ServiceOptions;

/// The configuration file's shape; every field is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub data_dir: Option<PathBuf>,
    pub listen: Option<IpAddr>,
    pub thrift_port: Option<u16>,
    pub http_port: Option<u16>,
    pub grpc_port: Option<u16>,
    /// HBase's native RPC (default 16020, HBase's region server port; 0 = off).
    pub hbase_port: Option<u16>,
    /// The read-only ZooKeeper endpoint HBase clients discover the server through
    /// (default 2181; 0 = off).
    pub zookeeper_port: Option<u16>,
    /// Requests at least this slow go to the slow-request log (default 100).
    pub slow_request_ms: Option<u64>,
    /// Log filter, e.g. `info` or `warn,strata_engine=debug`; `STRATA_LOG` overrides it.
    pub log_level: Option<String>,
    /// The process's memory, split into the memstore, block-cache, write and request
    /// budgets (see `memory.rs`).
    pub memory_limit_mb: Option<u64>,
    #[serde(default)]
    pub engine: EngineConfig,
    #[serde(default)]
    pub limits: super::limits::LimitsConfig,
    /// Directories beyond `data_dir`, each with a storage type (`[[volumes]]`).
    #[serde(default)]
    pub volumes: Vec<super::volumes::VolumeConfig>,
    /// Storage types beyond `ram`, `ssd` and `hdd` (`[[storage_types]]`).
    #[serde(default)]
    pub storage_types: Vec<super::storage_defs::StorageTypeConfig>,
    /// Storage policies beyond HBase's (`[[storage_policies]]`).
    #[serde(default)]
    pub storage_policies: Vec<super::storage_defs::StoragePolicyConfig>,
    /// Where flushed and compacted files go: `ALL_SSD`, `ONE_SSD`, `HOT`, `WARM`, `COLD`,
    /// `LAZY_PERSIST` or a defined policy (default `HOT`).
    pub storage_policy: Option<String>,
    /// Where WAL segments go (default: `storage_policy`).
    pub wal_storage_policy: Option<String>,
    /// Moving files between storage types (`[mover]`).
    #[serde(default)]
    pub mover: super::volumes::MoverConfig,
    /// Compression and block size per storage type (`[tiers.hdd]`...).
    #[serde(default)]
    pub tiers: std::collections::BTreeMap<String, super::volumes::TierConfig>,
    /// Cluster mode (`[cluster]`); absent is standalone.
    #[serde(default)]
    pub cluster: super::cluster::ClusterFileConfig,
    /// TLS on the listeners it names (`[tls]`); absent is none.
    #[serde(default)]
    pub tls: super::tls::TlsFileConfig,
    /// Permission checks and how callers are known (`[security]`); absent is none.
    #[serde(default)]
    pub security: super::security::SecurityFileConfig,
}

/// Engine settings in the configuration file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    pub block_cache_mb: Option<u64>,
    /// Directory of the block cache's second level on a fast local device (see
    /// `l2_cache.rs`); with `l2_cache_mb`.
    pub l2_cache_path: Option<PathBuf>,
    pub l2_cache_mb: Option<u64>,
    /// The row cache (answers to repeated point reads of ROW_CACHE families); 0 or unset
    /// is off. Under `memory_limit_mb` it comes out of the block cache's share.
    pub row_cache_mb: Option<u64>,
    pub memstore_limit_mb: Option<u64>,
    pub memstore_flush_mb: Option<u64>,
    pub wal_segment_mb: Option<u64>,
    pub wal_async_flush_ms: Option<u64>,
    /// WAL groups (`wal_groups.rs`): a number, or `"per_volume"`; default 1.
    pub wal_groups: Option<super::wal_groups::WalGroupsSetting>,
    pub compaction_mb_per_sec: Option<u64>,
    pub blocking_store_files: Option<usize>,
    /// Writers to a region holding this many times memstore_flush_mb wait for its flush
    /// (HBase's hbase.hregion.memstore.block.multiplier; default 4).
    pub memstore_block_multiplier: Option<u64>,
    /// Placement passes over volumes much slower than their type's fastest (default true).
    pub avoid_slow_volumes: Option<bool>,
    /// Background lanes once per storage type of the volumes (default true).
    pub lanes_per_storage_type: Option<bool>,
    /// Background threads that only flush (HBase's `hbase.hstore.flusher.count`).
    pub flush_threads: Option<usize>,
    /// Threads for compactions up to `compaction_throttle_mb` of input
    /// (`hbase.regionserver.thread.compaction.small`).
    pub compaction_small_threads: Option<usize>,
    /// Threads for larger compactions (`hbase.regionserver.thread.compaction.large`).
    pub compaction_large_threads: Option<usize>,
    /// Compaction input above which a compaction is large
    /// (`hbase.regionserver.thread.compaction.throttle`).
    pub compaction_throttle_mb: Option<u64>,
    pub write_wait_timeout_ms: Option<u64>,
    pub scanner_lease_ms: Option<u64>,
    pub auto_split: Option<bool>,
    pub split_initial_mb: Option<u64>,
    pub max_region_mb: Option<u64>,
    pub durability: Option<DurabilitySetting>,
}

/// The `durability` key: the least durability of every logged write.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DurabilitySetting {
    SyncWal,
    FsyncWal,
}

/// The effective server settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub data_dir: PathBuf,
    pub listen: IpAddr,
    pub thrift_port: u16,
    pub http_port: u16,
    pub grpc_port: u16,
    pub hbase_port: DefaultedPort,
    pub zookeeper_port: DefaultedPort,
    pub slow_request: Duration,
    pub log_level: String,
    pub service: ServiceOptions,
    /// The network servers' connection limits (`[limits]`).
    pub network: super::limits::NetworkLimits,
    /// Cluster mode's settings (`[cluster]` and the `--cluster`... flags).
    pub cluster: super::cluster::ClusterFileConfig,
    /// Time between mover passes; `None` = no mover.
    pub mover_interval: Option<Duration>,
    /// TLS on the listeners `[tls]` names; `None` = none.
    pub tls: Option<super::tls::TlsSettings>,
    /// `[security]`.
    pub security: super::security::SecuritySettings,
}

/// A port with a well-known default that another program may hold (HBase's 16020, a
/// ZooKeeper's 2181): when the default is taken, the server warns and goes on without it;
/// a port the user set must be free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultedPort {
    pub port: u16,
    pub explicit: bool,
}

impl DefaultedPort {
    fn from_setting(setting: Option<u16>, default: u16) -> DefaultedPort {
        DefaultedPort {
            port: setting.unwrap_or(default),
            explicit: setting.is_some(),
        }
    }

    /// A port set on the command line.
    pub fn set(port: u16) -> DefaultedPort {
        DefaultedPort {
            port,
            explicit: true,
        }
    }
}

/// Reads and parses a configuration file, with errors that name the file.
pub fn read_file(path: &std::path::Path) -> Result<FileConfig, String> {
    #[allow(clippy::disallowed_methods)] // the binary reads its own config file, not engine data
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("invalid config file {}: {e}", path.display()))
}

const MIB: u64 = 1 << 20;

impl ServerConfig {
    /// Applies the file's settings over the defaults; fails only on settings that do not fit
    /// together (a memory limit smaller than its parts).
    pub fn from_file(file: FileConfig) -> Result<ServerConfig, String> {
        let data_dir = file
            .data_dir
            .unwrap_or_else(|| PathBuf::from("strata-data"));
        let mut engine = EngineOptions::new(&data_dir);
        let e = &file.engine;
        if let Some(v) = e.block_cache_mb {
            engine.block_cache_bytes = v * MIB;
        }
        if let Some(v) = e.memstore_limit_mb {
            engine.memstore_limit = v * MIB;
        }
        if let Some(v) = e.row_cache_mb {
            engine.row_cache_bytes = v * MIB;
        }
        if let Some(v) = e.memstore_flush_mb {
            engine.memstore_flush_size = v * MIB;
        }
        if let Some(v) = e.wal_segment_mb {
            engine.wal.segment_size = v * MIB;
        }
        if let Some(v) = e.wal_async_flush_ms {
            engine.wal.async_flush_interval = Duration::from_millis(v);
        }
        super::wal_groups::apply(e.wal_groups, &mut engine);
        if let Some(v) = e.compaction_mb_per_sec {
            engine.compaction_bytes_per_sec = (v > 0).then_some(v * MIB);
        }
        if let Some(v) = e.blocking_store_files {
            engine.blocking_store_files = v;
        }
        if let Some(v) = e.memstore_block_multiplier {
            if v == 0 {
                return Err("[engine] memstore_block_multiplier must be at least 1".into());
            }
            engine.memstore_block_multiplier = v;
        }
        if let Some(v) = e.avoid_slow_volumes {
            engine.avoid_slow_volumes = v;
        }
        if let Some(v) = e.lanes_per_storage_type {
            engine.lanes_per_storage_type = v;
        }
        apply_background_threads(e, &mut engine)?;
        super::l2_cache::apply(e.l2_cache_path.as_ref(), e.l2_cache_mb, &mut engine)?;
        super::storage_defs::define(&file.storage_types, &file.storage_policies)?;
        let tiering = super::volumes::TieringConfig {
            volumes: file.volumes.clone(),
            storage_policy: file.storage_policy.clone(),
            wal_storage_policy: file.wal_storage_policy.clone(),
            tiers: file.tiers.clone(),
        };
        tiering.apply(&data_dir, &mut engine)?;
        super::injected_latency::apply(&file.volumes, &mut engine)?;
        let mover_interval = file.mover.apply(&mut engine)?;
        if let Some(v) = e.durability {
            engine.wal.min_durability = match v {
                DurabilitySetting::SyncWal => strata_engine::Durability::SyncWal,
                DurabilitySetting::FsyncWal => strata_engine::Durability::FsyncWal,
            };
        }
        if let Some(v) = e.write_wait_timeout_ms {
            engine.write_wait_timeout = Duration::from_millis(v);
        }
        let mut service = ServiceOptions {
            engine,
            ..ServiceOptions::new(&data_dir)
        };
        if let Some(v) = e.scanner_lease_ms {
            service.scanner_lease = Duration::from_millis(v);
        }
        if let Some(v) = e.auto_split {
            service.split.enabled = v;
        }
        if let Some(v) = e.split_initial_mb {
            service.split.initial_size = Some(v * MIB);
        }
        if let Some(v) = e.max_region_mb {
            service.split.max_region_size = v * MIB;
        }
        file.limits.apply_to_service(&mut service.limits);
        if let Some(limit) = file.memory_limit_mb {
            let explicit = super::memory::ExplicitParts {
                memstore_mb: e.memstore_limit_mb,
                block_cache_mb: e.block_cache_mb,
                row_cache_mb: e.row_cache_mb,
                write_bytes: file.limits.max_write_bytes_in_flight,
                request_bytes: file.limits.max_request_bytes_in_flight,
            };
            super::memory::apply(limit, explicit, &mut service)?;
        }
        let tls = file.tls.resolve()?;
        let security = file.security.resolve(&service.engine.clock)?;
        service.access = security.access.clone();
        let mut network = file.limits.network();
        if file.memory_limit_mb.is_some() && file.limits.grpc_max_request_bytes.is_none() {
            // gRPC messages are not read through the request budget (tonic reads them), so
            // under a memory limit one message may not exceed the budget's size either.
            network.grpc.max_request_bytes = network
                .grpc
                .max_request_bytes
                .min(service.limits.max_request_bytes_in_flight);
        }
        Ok(ServerConfig {
            network,
            data_dir,
            listen: file.listen.unwrap_or(IpAddr::from([127, 0, 0, 1])),
            thrift_port: file.thrift_port.unwrap_or(9090),
            http_port: file.http_port.unwrap_or(8080),
            grpc_port: file.grpc_port.unwrap_or(50051),
            hbase_port: DefaultedPort::from_setting(file.hbase_port, 16_020),
            zookeeper_port: DefaultedPort::from_setting(file.zookeeper_port, 2181),
            slow_request: file.slow_request_ms.map_or(
                strata_server::metrics::DEFAULT_SLOW_THRESHOLD,
                Duration::from_millis,
            ),
            log_level: file.log_level.unwrap_or_else(|| "info".to_string()),
            service,
            cluster: file.cluster,
            mover_interval,
            tls,
            security,
        })
    }

    /// Moves the data directory (a `--data-dir` flag).
    pub fn set_data_dir(&mut self, dir: PathBuf) {
        self.service.engine.data_dir = dir.clone();
        // The data directory is the first volume whenever volumes are configured.
        if let Some(primary) = self.service.engine.volumes.first_mut() {
            primary.root = dir.clone();
        }
        self.data_dir = dir;
    }
}

/// The lanes' thread counts and the compaction throttle; a lane without threads would never
/// run its work, so 0 is refused naming the key.
fn apply_background_threads(e: &EngineConfig, engine: &mut EngineOptions) -> Result<(), String> {
    let threads = [
        (e.flush_threads, "flush_threads", &mut engine.flush_threads),
        (
            e.compaction_small_threads,
            "compaction_small_threads",
            &mut engine.compaction_small_threads,
        ),
        (
            e.compaction_large_threads,
            "compaction_large_threads",
            &mut engine.compaction_large_threads,
        ),
    ];
    for (value, key, field) in threads {
        match value {
            Some(0) => return Err(format!("[engine] {key} must be at least 1")),
            Some(n) => *field = n,
            None => {}
        }
    }
    if let Some(v) = e.compaction_throttle_mb {
        engine.compaction_throttle_bytes = Some(v.saturating_mul(MIB));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_standalone_on_loopback() {
        let c = ServerConfig::from_file(FileConfig::default()).unwrap();
        assert_eq!(c.listen, IpAddr::from([127, 0, 0, 1]));
        assert_eq!(c.thrift_port, 9090);
        assert_eq!(c.data_dir, PathBuf::from("strata-data"));
        assert_eq!(c.http_port, 8080);
        assert_eq!(c.slow_request, Duration::from_millis(100));
        assert_eq!(c.log_level, "info");
    }

    #[test]
    fn operability_settings_are_read() {
        let file: FileConfig =
            toml::from_str("slow_request_ms = 5\nlog_level = \"debug\"\nhttp_port = 0\n").unwrap();
        let c = ServerConfig::from_file(file).unwrap();
        assert_eq!(c.slow_request, Duration::from_millis(5));
        assert_eq!(c.log_level, "debug");
        assert_eq!(c.http_port, 0);
    }

    #[test]
    fn file_settings_apply_and_unknown_keys_are_rejected() {
        let file: FileConfig = toml::from_str(
            "thrift_port = 9191\n[engine]\nblock_cache_mb = 64\nrow_cache_mb = 8\nscanner_lease_ms = 5\nmax_region_mb = 100\n",
        )
        .unwrap();
        let c = ServerConfig::from_file(file).unwrap();
        assert_eq!(c.thrift_port, 9191);
        assert_eq!(c.service.engine.block_cache_bytes, 64 * MIB);
        assert_eq!(c.service.engine.row_cache_bytes, 8 * MIB);
        assert_eq!(c.service.scanner_lease, Duration::from_millis(5));
        assert_eq!(c.service.split.max_region_size, 100 * MIB);
        assert!(toml::from_str::<FileConfig>("thrift_prot = 1").is_err());
        let fsync: FileConfig = toml::from_str("[engine]\ndurability = \"fsync_wal\"\n").unwrap();
        let c = ServerConfig::from_file(fsync).unwrap();
        assert_eq!(
            c.service.engine.wal.min_durability,
            strata_engine::Durability::FsyncWal
        );
        assert!(toml::from_str::<FileConfig>("[engine]\ndurability = \"fast\"\n").is_err());
        let l2: FileConfig =
            toml::from_str("[engine]\nl2_cache_path = \"/dev/shm/l2\"\nl2_cache_mb = 8\n").unwrap();
        let c = ServerConfig::from_file(l2).unwrap();
        let l2 = c.service.engine.l2_cache.unwrap();
        assert_eq!(l2.capacity_bytes, 8 * MIB);
    }

    /// The flush, small-compaction and large-compaction thread counts.
    fn lane_threads(e: &strata_engine::EngineOptions) -> (usize, usize, usize) {
        (
            e.flush_threads,
            e.compaction_small_threads,
            e.compaction_large_threads,
        )
    }

    #[test]
    fn background_threads_and_the_compaction_throttle_are_read() {
        let c = ServerConfig::from_file(FileConfig::default()).unwrap();
        let e = &c.service.engine;
        let threads = lane_threads(e);
        assert_eq!(threads, (1, 1, 1));
        assert_eq!(e.compaction_throttle(), 2 * 10 * 128 * MIB);
        let file: FileConfig = toml::from_str(
            "[engine]\nflush_threads = 3\ncompaction_small_threads = 2\n\
             compaction_large_threads = 4\ncompaction_throttle_mb = 500\n",
        )
        .unwrap();
        let c = ServerConfig::from_file(file).unwrap();
        let e = &c.service.engine;
        let threads = lane_threads(e);
        assert_eq!(threads, (3, 2, 4));
        assert_eq!(e.compaction_throttle(), 500 * MIB);
        let file: FileConfig = toml::from_str("[engine]\ncompaction_large_threads = 0\n").unwrap();
        let err = ServerConfig::from_file(file).unwrap_err();
        assert_eq!(err, "[engine] compaction_large_threads must be at least 1");
    }

    #[test]
    fn a_memory_limit_sizes_the_budgets_and_caps_grpc_messages() {
        let file: FileConfig =
            toml::from_str("memory_limit_mb = 132\n[engine]\nblock_cache_mb = 20\n").unwrap();
        let c = ServerConfig::from_file(file).unwrap();
        assert_eq!(c.service.engine.memstore_limit, 40 * MIB);
        assert_eq!(c.service.engine.block_cache_bytes, 20 * MIB);
        assert_eq!(
            c.service.limits.max_request_bytes_in_flight as u64,
            10 * MIB
        );
        assert_eq!(c.network.grpc.max_request_bytes as u64, 10 * MIB);
        let file: FileConfig =
            toml::from_str("memory_limit_mb = 70\n[engine]\nblock_cache_mb = 64\n").unwrap();
        let err = ServerConfig::from_file(file).unwrap_err();
        assert!(
            err.contains("memory_limit_mb = 70 is smaller than its parts"),
            "{err}"
        );
    }

    #[test]
    fn the_limits_section_reaches_the_service_and_the_servers() {
        let file: FileConfig = toml::from_str(
            "[limits]\nmax_value_bytes = 1024\nthrift_max_connections = 7\n\
             grpc_handshake_timeout_ms = 300\n",
        )
        .unwrap();
        let c = ServerConfig::from_file(file).unwrap();
        assert_eq!(c.service.limits.max_value_bytes, 1024);
        assert_eq!(c.network.thrift.max_connections, 7);
        assert_eq!(
            c.network.grpc.handshake_timeout,
            Some(Duration::from_millis(300))
        );
        assert!(toml::from_str::<FileConfig>("[limits]\nmax_cells = 1\n").is_err());
    }

    #[test]
    fn volumes_and_storage_policies_are_read() {
        let tmp = tempfile::tempdir().unwrap();
        let hdd = tmp.path().join("hdd");
        let text = format!(
            "data_dir = {:?}\nstorage_policy = \"COLD\"\nwal_storage_policy = \"ALL_SSD\"\n\
             [[volumes]]\npath = {hdd:?}\nstorage_type = \"hdd\"\n",
            tmp.path().join("data")
        );
        let file: FileConfig = toml::from_str(&text).unwrap();
        let mut c = ServerConfig::from_file(file).unwrap();
        assert_eq!(c.service.engine.volumes.len(), 2);
        assert!(c.service.engine.placement.is_some());
        c.set_data_dir(tmp.path().join("moved"));
        assert_eq!(c.service.engine.volumes[0].root, tmp.path().join("moved"));
        let typo = "[[volumes]]\npath = \"x\"\nstorage_typ = \"hdd\"\n";
        assert!(toml::from_str::<FileConfig>(typo).is_err());
    }

    #[test]
    fn defined_storage_types_and_policies_place_files() {
        use strata_engine::fs::FileCategory;
        let tmp = tempfile::tempdir().unwrap();
        let (fast, slow) = (tmp.path().join("fast"), tmp.path().join("slow"));
        let text = format!(
            "data_dir = {:?}\nstorage_policy = \"CONFIG_TEST_TIERED\"\n\
             [[storage_types]]\nname = \"config_test_nvme\"\n\
             [[storage_policies]]\nname = \"CONFIG_TEST_TIERED\"\n\
             wal = [\"config_test_nvme\"]\nflush = [\"config_test_nvme\"]\ncompaction = [\"hdd\"]\n\
             [[volumes]]\npath = {fast:?}\nstorage_type = \"config_test_nvme\"\n\
             [[volumes]]\npath = {slow:?}\nstorage_type = \"hdd\"\n\
             [tiers.config_test_nvme]\ncompression = \"none\"\n",
            tmp.path().join("data")
        );
        let file: FileConfig = toml::from_str(&text).unwrap();
        let c = ServerConfig::from_file(file).unwrap();
        let engine = &c.service.engine;
        let placement = engine.placement.as_ref().unwrap();
        let at = |category| &engine.volumes[placement.choose(category, &engine.volumes)];
        assert_eq!(at(FileCategory::Flush).root, fast);
        assert_eq!(at(FileCategory::Wal).root, fast);
        assert_eq!(at(FileCategory::Compaction).root, slow);
        assert_eq!(engine.tier_settings.len(), 1);
        // A volume of a type nobody defined names it.
        let undefined = format!(
            "data_dir = {:?}\n[[volumes]]\npath = {fast:?}\nstorage_type = \"optane\"\n",
            tmp.path().join("data")
        );
        let file: FileConfig = toml::from_str(&undefined).unwrap();
        let err = ServerConfig::from_file(file).err().unwrap();
        assert!(err.contains("unknown storage type \"optane\""), "{err}");
    }
}
