#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Snapshots in `/api/v1/snapshots` and on `/ui/tables`.

mod common;

use common::body;
use strata_engine::{Cell, Durability, FamilyOptions};
use strata_server::{Service, ServiceOptions, TableName};

#[tokio::test]
async fn snapshots_are_listed_in_the_json_api_and_on_the_tables_page() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
    let page = body(&service, "/ui/tables").await;
    assert!(
        page.contains("<h2>Snapshots</h2>") && page.contains("None"),
        "{page}"
    );

    let t = TableName::parse("ns1:t").unwrap();
    service.admin().create_namespace("ns1").unwrap();
    service
        .admin()
        .create_table(&t, vec![FamilyOptions::new("cf")], vec!["m".into()])
        .unwrap();
    let cell = Cell::put("r", "cf", "q", 1_700_000_000_000, "v");
    service
        .rows()
        .mutate(&t, vec![cell], Durability::SyncWal)
        .unwrap();
    service.admin().snapshot_table(&t, "nightly").unwrap();

    let json: serde_json::Value =
        serde_json::from_str(&body(&service, "/api/v1/snapshots").await).unwrap();
    let list = json.as_array().unwrap();
    assert_eq!(list.len(), 1, "{json}");
    assert_eq!(list[0]["name"], "nightly");
    assert_eq!(list[0]["table"], "ns1:t");
    assert_eq!(list[0]["regions"], 2);
    assert_eq!(list[0]["files"], 1, "one region had data");
    assert!(list[0]["bytes"].as_u64().unwrap() > 0);
    assert!(list[0]["created_at_ms"].as_i64().unwrap() > 1_700_000_000_000);

    let page = body(&service, "/ui/tables").await;
    let section = page.split("<h2>Snapshots</h2>").nth(1).unwrap();
    assert!(
        section.contains("nightly") && section.contains("/ui/tables/ns1:t"),
        "{section}"
    );
}
