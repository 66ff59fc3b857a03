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
