#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The row cache's figures in `/metrics`, `/api/v1/cache` and the storage page, on a server
//! with a row cache and a ROW_CACHE family.

mod common;

use common::body;
use strata_engine::{Cell, Durability, FamilyOptions, Get};
use strata_server::{Service, ServiceOptions, TableName};

/// The value of the unlabelled sample `name` in Prometheus text.
fn sample(text: &str, name: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.split(' ').next() == Some(name))
        .unwrap_or_else(|| panic!("{name} missing"));
    line.rsplit_once(' ').unwrap().1.parse().unwrap()
}

#[tokio::test]
async fn hits_misses_invalidations_and_sizes_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path());
    options.engine.row_cache_bytes = 1 << 20;
    let service = Service::open(options).unwrap();
    let t = TableName::parse("hot").unwrap();
    let mut family = FamilyOptions::new("cf");
    family.row_cache = true;
    service
        .admin()
        .create_table(&t, vec![family], Vec::new())
        .unwrap();
    let put = |v: &str| {
        let cell = Cell::put("r", "cf", "q", 1_700_000_000_000, v.to_string());
        service
            .rows()
            .mutate(&t, vec![cell], Durability::SyncWal)
            .unwrap();
    };
    put("a");
    // A row is cached on its second miss: miss, miss (cached), hit, hit.
    for _ in 0..4 {
        service.rows().get(&t, &Get::new("r")).unwrap();
    }
    put("b");

    let metrics = body(&service, "/metrics").await;
    assert_eq!(sample(&metrics, "strata_row_cache_hits_total"), 2.0);
    assert_eq!(sample(&metrics, "strata_row_cache_misses_total"), 2.0);
    assert_eq!(
        sample(&metrics, "strata_row_cache_invalidations_total"),
        1.0
    );
    assert_eq!(sample(&metrics, "strata_row_cache_entries"), 0.0);
    assert_eq!(
        sample(&metrics, "strata_row_cache_capacity_bytes"),
        f64::from(1u32 << 20)
    );

    service.rows().get(&t, &Get::new("r")).unwrap();
    let cache: serde_json::Value =
        serde_json::from_str(&body(&service, "/api/v1/cache").await).unwrap();
    let rows = &cache["row_cache"];
    assert_eq!(rows["hits"], 2);
    assert_eq!(rows["misses"], 3);
    assert_eq!(rows["entries"], 1);
    assert!(rows["size_bytes"].as_u64().unwrap() > 0, "{rows}");
    assert_eq!(rows["hit_ratio"], 0.4);

    let page = body(&service, "/ui/storage").await;
    assert!(
        page.contains("<h2>Row cache</h2>") && page.contains("40.0%"),
        "{page}"
    );
}
