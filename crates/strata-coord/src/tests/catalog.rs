//! The catalog in etcd: written by the master only, read and watched by everyone.

use std::time::Duration;

use super::*;
use crate::kv::WatchEvent;

#[test]
fn only_the_current_master_writes_the_catalog_and_others_see_it() {
    let cluster = Cluster::new();
    let m1 = Server::start(&cluster, "m1");
    let other = Server::start(&cluster, "s2");
    let lead = elect(&m1);
    let (_, start) = other.coord.catalog_entries().unwrap();
    let watch = other.coord.watch_catalog(start + 1).unwrap();
    m1.coord
        .put_catalog_entry(&lead, "table/default:t", b"record".to_vec())
        .unwrap();
    m1.coord
        .put_catalog_entry(&lead, "ns/apps", Vec::new())
        .unwrap();
    let (entries, _) = other.coord.catalog_entries().unwrap();
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["ns/apps", "table/default:t"]);
    assert_eq!(entries[1].1, b"record");
    match watch.next_timeout(Duration::from_secs(1)) {
        Some(Ok(WatchEvent::Put(kv))) => assert!(kv.key.ends_with("catalog/table/default:t")),
        other => panic!("{other:?}"),
    }
    // A leadership of a term that is not the current one writes nothing.
    let stale = Leadership {
        term: lead.term + 1_000,
        ..lead.clone()
    };
    assert!(m1
        .coord
        .delete_catalog_entry(&stale, "table/default:t")
        .is_err());
    m1.coord
        .delete_catalog_entry(&lead, "table/default:t")
        .unwrap();
    assert_eq!(other.coord.catalog_entries().unwrap().0.len(), 1);
    assert!(m1
        .coord
        .put_catalog_entry(&lead, "table/a/b", Vec::new())
        .is_err());
}

#[test]
fn a_decommission_mark_outlives_its_master_and_only_a_master_sets_it() {
    let cluster = Cluster::new();
    let m1 = Server::start(&cluster, "m1");
    let lead = elect(&m1);
    m1.coord.set_decommissioned(&lead, "s7", true).unwrap();
    let stale = Leadership {
        term: lead.term + 1_000,
        ..lead.clone()
    };
    assert!(m1.coord.set_decommissioned(&stale, "s8", true).is_err());
    // The master leaves; the next one reads the mark.
    m1.coord.resign(&lead).unwrap();
    let m2 = Server::start(&cluster, "m2");
    let lead2 = elect(&m2);
    assert_eq!(m2.coord.decommissioned_servers().unwrap(), ["s7"]);
    m2.coord.set_decommissioned(&lead2, "s7", false).unwrap();
    assert!(m2.coord.decommissioned_servers().unwrap().is_empty());
}
