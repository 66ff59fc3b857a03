//! Tables as operators see them: each table's regions with their key ranges and the
//! engine's statistics of each region (sizes, request counts, store files).

use serde::Serialize;
use strata_engine::stats::RegionStats;

use crate::directory::TableDirectory;
use crate::names::TableName;

/// One table and its regions.
#[derive(Debug, Clone, Serialize)]
pub struct TableStatus {
    pub name: String,
    pub enabled: bool,
    pub families: Vec<String>,
    pub size_bytes: u64,
    pub memstore_bytes: u64,
    pub read_requests: u64,
    pub write_requests: u64,
    pub regions: Vec<RegionStatus>,
}

/// One region of a table.
#[derive(Debug, Clone, Serialize)]
pub struct RegionStatus {
    /// HBase-style region name.
    pub name: String,
    /// Printable keys: bytes outside ASCII graphics as `\xNN` (HBase's toStringBinary).
    pub start_key: String,
    pub end_key: String,
    #[serde(flatten)]
    pub stats: RegionStats,
}

/// HBase's Bytes.toStringBinary: printable ASCII as is, everything else as `\xNN`.
pub fn printable_key(key: &[u8]) -> String {
    let mut out = String::with_capacity(key.len());
    for &b in key {
        if b.is_ascii_graphic() && b != b'\\' || b == b' ' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

impl TableStatus {
    /// Every table of `directory` with its regions (user tables and system ones), sorted
    /// by name.
    pub fn of_all(directory: &TableDirectory) -> Vec<TableStatus> {
        let tables = directory.list_tables();
        tables
            .iter()
            .filter_map(|name| TableStatus::of(directory, name))
            .collect()
    }

    /// One table of `directory` with its regions; `None` if there is no such table.
    pub fn of(directory: &TableDirectory, name: &TableName) -> Option<TableStatus> {
        let state = directory.table(name).ok()?;
        let regions: Vec<RegionStatus> = state
            .regions
            .iter()
            .zip(state.region_infos())
            .map(|(open, info)| RegionStatus {
                name: info.name,
                start_key: printable_key(&open.entry.start_key),
                end_key: printable_key(&open.entry.end_key),
                // A region served elsewhere shows its id and no figures here.
                stats: open.local().map(|r| r.stats()).unwrap_or(RegionStats {
                    id: open.entry.id,
                    ..RegionStats::default()
                }),
            })
            .collect();
        let sum = |f: fn(&RegionStats) -> u64| regions.iter().map(|r| f(&r.stats)).sum();
        Some(TableStatus {
            name: name.to_string(),
            enabled: state.record.enabled,
            families: state
                .record
                .families
                .iter()
                .map(|f| String::from_utf8_lossy(&f.name).into_owned())
                .collect(),
            size_bytes: sum(|r| r.file_bytes),
            memstore_bytes: sum(|r| r.memstore_bytes),
            read_requests: sum(|r| r.read_requests),
            write_requests: sum(|r| r.write_requests),
            regions,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::{Service, ServiceOptions};
    use strata_engine::{Cell, Durability, FamilyOptions, Get};

    #[test]
    fn keys_print_like_hbase() {
        assert_eq!(printable_key(b"ab c"), "ab c");
        assert_eq!(printable_key(&[0, b'z', 0xff, b'\\']), "\\x00z\\xFF\\x5C");
    }

    #[test]
    fn tables_report_regions_and_requests() {
        let dir = tempfile::tempdir().unwrap();
        let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
        let t = TableName::parse("t").unwrap();
        service
            .admin()
            .create_table(
                &t,
                vec![FamilyOptions::new("cf")],
                vec![bytes::Bytes::from("m")],
            )
            .unwrap();
        let cells = vec![
            Cell::put("a", "cf", "q", 1, "1"),
            Cell::put("z", "cf", "q", 1, "2"),
        ];
        service
            .rows()
            .mutate(&t, cells, Durability::SyncWal)
            .unwrap();
        service.rows().get(&t, &Get::new("a")).unwrap();
        let status = service.admin().one_table_status(&t).unwrap();
        assert_eq!(status.regions.len(), 2);
        assert_eq!(status.regions[0].end_key, "m");
        assert_eq!(status.regions[1].start_key, "m");
        assert_eq!(status.write_requests, 2, "one batch per region");
        assert_eq!(status.read_requests, 1);
        assert!(status.memstore_bytes > 0);
        assert_eq!(status.families, ["cf"]);
        assert!(service.admin().table_status().iter().any(|s| s.name == "t"));
        let totals = service.metrics().totals();
        assert_eq!(totals[0].1.count, 1, "one get");
        assert_eq!(totals[1].1.count, 1, "one mutate");
        service.close().unwrap();
    }
}
