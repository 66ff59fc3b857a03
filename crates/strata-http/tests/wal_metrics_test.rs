#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The WAL's figures with WAL groups: in `/metrics` the totals, and each group labelled by
//! group and volume, adding up to them; on `/ui/storage` a row per group.

mod common;

use common::body;
use strata_engine::{Cell, Durability, FamilyOptions, WalGroupCount};
use strata_server::{Service, ServiceOptions, TableName};

/// The value of the sample whose series (name and labels) is exactly `series`.
fn sample(text: &str, series: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.rsplit_once(' ').map(|(s, _)| s) == Some(series))
        .unwrap_or_else(|| panic!("{series} missing"));
    line.rsplit_once(' ').unwrap().1.parse().unwrap()
}

#[tokio::test]
async fn each_wal_group_is_a_labelled_series_and_they_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path());
    options.engine.wal.groups = WalGroupCount::Fixed(2);
    let service = Service::open(options).unwrap();
    let t = TableName::parse("t").unwrap();
    // Four regions, so both groups get writes (a region logs to group `id mod 2`).
    let splits = vec!["b".into(), "c".into(), "d".into()];
    service
        .admin()
        .create_table(&t, vec![FamilyOptions::new("cf")], splits)
        .unwrap();
    for row in ["a1", "b1", "c1", "d1", "a2", "b2"] {
        let cell = Cell::put(row, "cf", "q", 1_700_000_000_000, "v");
        service
            .rows()
            .mutate(&t, vec![cell], Durability::SyncWal)
            .unwrap();
    }

    let text = body(&service, "/metrics").await;
    let total = sample(&text, "strata_wal_appends_total");
    let group = |n: &str, name: &str| {
        sample(
            &text,
            &format!("strata_wal_group_{name}{{group=\"{n}\",volume=\"default\"}}"),
        )
    };
    let (g0, g1) = (group("0", "appends_total"), group("1", "appends_total"));
    assert!(g0 > 0.0 && g1 > 0.0, "both groups logged: {g0} {g1}");
    assert_eq!(g0 + g1, total);
    let syncs = |n: &str| group(n, "sync_duration_seconds_count");
    assert_eq!(
        syncs("0") + syncs("1"),
        sample(&text, "strata_wal_sync_duration_seconds_count")
    );
    assert!(group("0", "segments") >= 1.0);
    assert!(text.contains("# TYPE strata_wal_group_sync_duration_seconds histogram"));

    let page = body(&service, "/ui/storage").await;
    let section = page
        .split("<h3>WAL groups</h3>")
        .nth(1)
        .expect("a WAL groups table");
    let rows = section
        .split("</table>")
        .next()
        .unwrap()
        .matches("<tr>")
        .count();
    assert_eq!(rows, 3, "a header and one row per group");
}
