//! The WAL in `/metrics`: the totals over every WAL group, then each group (and each
//! leftover directory of an earlier group count) labelled by `group` and `volume`, so a
//! slow WAL device shows as the one group whose syncs are slow.

use strata_engine::stats::{WalGroupStats, WalStats};

use crate::exposition::Exposition;

type WalValue = fn(&WalStats) -> u64;

/// Every per-WAL family with a plain figure: (name, kind, help, figure).
const FAMILIES: [(&str, &str, &str, WalValue); 6] = [
    ("strata_wal_segments", "gauge", "WAL segment files.", |w| {
        w.segments
    }),
    (
        "strata_wal_bytes",
        "gauge",
        "Bytes in WAL segment files.",
        |w| w.total_bytes,
    ),
    (
        "strata_wal_appends_total",
        "counter",
        "Edits appended to the WAL.",
        |w| w.appends,
    ),
    (
        "strata_wal_written_bytes_total",
        "counter",
        "Record bytes written to the WAL.",
        |w| w.bytes_written,
    ),
    (
        "strata_wal_rolls_total",
        "counter",
        "WAL segments rolled because they were full.",
        |w| w.rolls,
    ),
    (
        "strata_wal_write_errors_total",
        "counter",
        "WAL batches that failed to write, flush or sync.",
        |w| w.write_errors,
    ),
];

const SYNC: &str = "strata_wal_sync_duration_seconds";

/// The totals under the plain names (as before WAL groups existed), each group's figures
/// under `strata_wal_group_*` with `group` (a number, or `leftover`) and `volume` labels.
pub fn wal(e: &mut Exposition, total: &WalStats, groups: &[WalGroupStats]) {
    for (name, kind, help, value) in FAMILIES {
        e.single(name, kind, help, value(total));
    }
    e.family(SYNC, "histogram", "WAL fsync latency.");
    sync_histogram(e, SYNC, &[], total);

    let labels: Vec<(String, &str)> = groups
        .iter()
        .map(|g| {
            let group = g
                .group
                .map_or_else(|| "leftover".to_string(), |n| n.to_string());
            (group, g.volume.as_str())
        })
        .collect();
    for (name, kind, help, value) in FAMILIES {
        let name = name.replacen("strata_wal_", "strata_wal_group_", 1);
        e.family(&name, kind, &format!("{help} By WAL group."));
        for (g, (group, volume)) in groups.iter().zip(&labels) {
            e.sample(
                &name,
                &[("group", group), ("volume", volume)],
                value(&g.stats),
            );
        }
    }
    let name = SYNC.replacen("strata_wal_", "strata_wal_group_", 1);
    e.family(&name, "histogram", "WAL fsync latency by WAL group.");
    for (g, (group, volume)) in groups.iter().zip(&labels) {
        sync_histogram(e, &name, &[("group", group), ("volume", volume)], &g.stats);
    }
}

/// The sync histogram: bucket `i` counts syncs under `2^i` µs.
fn sync_histogram(e: &mut Exposition, name: &str, labels: &[(&str, &str)], w: &WalStats) {
    let bounds: Vec<u64> = (0..w.sync_latency_buckets.len().saturating_sub(1))
        .map(|i| 1u64 << i)
        .collect();
    e.histogram(
        name,
        labels,
        &bounds,
        &w.sync_latency_buckets,
        w.sync_micros_total,
    );
}
