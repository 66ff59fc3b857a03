//! `inject_latency_ms` in a `[[volumes]]` table: a knob for benchmarks and tests that makes
//! a volume slow on purpose, so that placement (WAL and flushes on a fast volume,
//! compactions on a slow one) and the latency-aware chooser can be measured on one machine
//! without a real slow disk (`bench/tiered-volumes.sh`).
//!
//! It wraps the engine's filesystem in the fault layer (`strata_engine::fs::FaultFs`) with
//! one delay rule per operation that reaches the device: every write handed to the OS
//! (`flush`), every `sync` and every directory sync under the volume's path waits that
//! long first. Reads are not delayed. Standalone servers only: cluster mode replaces the
//! filesystem with the object store's (which has `[cluster] store_latency_ms`).

use std::sync::Arc;
use std::time::Duration;

use strata_engine::fs::{FaultFs, FaultKind, FaultOp, FaultRule};
use strata_engine::EngineOptions;

use super::volumes::VolumeConfig;

/// The largest latency accepted, so a typo cannot stall a server for minutes per write.
const MAX_LATENCY_MS: u64 = 10_000;

/// The operations a slow device makes wait: bytes reaching it, and syncs.
const DELAYED: [FaultOp; 3] = [FaultOp::Flush, FaultOp::Sync, FaultOp::SyncDir];

/// Wraps `engine.fs` so that the volumes with `inject_latency_ms` are that much slower;
/// leaves it alone when no volume asks for it.
pub fn apply(volumes: &[VolumeConfig], engine: &mut EngineOptions) -> Result<(), String> {
    let mut rules = Vec::new();
    for volume in volumes {
        let ms = volume.inject_latency_ms.unwrap_or(0);
        if ms == 0 {
            continue;
        }
        let path = volume.path.display().to_string();
        if ms > MAX_LATENCY_MS {
            return Err(format!(
                "[[volumes]] path = {path:?}: inject_latency_ms must be at most {MAX_LATENCY_MS}"
            ));
        }
        // Every file of the volume lies under `path/`; the separator keeps `/a/slow` from
        // matching `/a/slow2`.
        let under = format!("{}/", path.trim_end_matches('/'));
        tracing::warn!(
            volume = %path,
            latency_ms = ms,
            "inject_latency_ms: every write and sync on this volume is delayed (benchmarks only)"
        );
        for op in DELAYED {
            let delay = FaultKind::Delay(Duration::from_millis(ms));
            rules.push(FaultRule::new(op, delay).path_contains(under.clone()));
        }
    }
    if rules.is_empty() {
        return Ok(());
    }
    let slowed = FaultFs::new(Arc::clone(&engine.fs));
    for rule in rules {
        slowed.inject(rule).map_err(|e| e.to_string())?;
    }
    engine.fs = Arc::new(slowed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::super::config::{FileConfig, ServerConfig};

    fn config(text: &str) -> Result<ServerConfig, String> {
        let file: FileConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        ServerConfig::from_file(file)
    }

    /// How long writing a few bytes and handing them to the OS takes at `path`.
    #[allow(clippy::disallowed_methods)] // real time: the delay is slept on the system clock
    fn flush_time(config: &ServerConfig, path: &std::path::Path) -> std::time::Duration {
        let fs = &config.service.engine.fs;
        let mut file = fs.create(path).unwrap();
        file.append(b"some bytes").unwrap();
        let started = Instant::now();
        file.flush().unwrap();
        started.elapsed()
    }

    #[test]
    fn a_volume_with_injected_latency_is_slow_and_its_neighbours_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let slow = tmp.path().join("slow");
        let beside = tmp.path().join("slow2");
        let text = format!(
            "data_dir = {data:?}\n\
             [[volumes]]\npath = {slow:?}\nstorage_type = \"hdd\"\ninject_latency_ms = 150\n\
             [[volumes]]\npath = {beside:?}\nstorage_type = \"hdd\"\n"
        );
        let config = config(&text).unwrap();
        let delayed = flush_time(&config, &slow.join("f"));
        assert!(delayed.as_millis() >= 150, "took {delayed:?}");
        for other in [data.join("f"), beside.join("f")] {
            std::fs::create_dir_all(other.parent().unwrap()).unwrap();
            let took = flush_time(&config, &other);
            assert!(took.as_millis() < 150, "{} took {took:?}", other.display());
        }
    }

    #[test]
    fn the_data_directory_can_be_slowed_and_silly_latencies_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        let text = format!(
            "data_dir = {data:?}\n\
             [[volumes]]\npath = {data:?}\nstorage_type = \"hdd\"\ninject_latency_ms = 150\n"
        );
        let took = flush_time(&config(&text).unwrap(), &data.join("f"));
        assert!(took.as_millis() >= 150, "took {took:?}");
        let silly = text.replace("= 150", "= 60000");
        let err = config(&silly).unwrap_err();
        assert!(err.contains("inject_latency_ms must be at most"), "{err}");
    }

    #[test]
    fn no_latency_keeps_the_plain_filesystem_and_the_comparison_switches_are_read() {
        let text = "[engine]\navoid_slow_volumes = false\nlanes_per_storage_type = false\n";
        let plain = config(text).unwrap();
        let engine = &plain.service.engine;
        assert!(format!("{:?}", engine.fs).contains("LocalFs"));
        assert!(!engine.avoid_slow_volumes);
        assert!(!engine.lanes_per_storage_type);
        let defaults = config("").unwrap().service.engine;
        assert!(defaults.avoid_slow_volumes && defaults.lanes_per_storage_type);
    }
}
