//! The garbage collector's inputs: held files under each server's lease, and every
//! manifest pointer at once.

use super::*;

#[test]
fn held_files_are_published_under_the_lease_and_vanish_with_it() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let b = Server::start(&cluster, "b");
    let keys = vec!["data/regions/0000000000000001/cf/0000000000000003-s1i2.sst".to_string()];
    a.coord.publish_held(&a.lease, "a", &keys).unwrap();
    b.coord.publish_held(&b.lease, "b", &[]).unwrap();
    let held = b.coord.held_files().unwrap();
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].0, "a");
    assert_eq!(held[0].1.keys, keys);

    // An empty set removes the record.
    a.coord.publish_held(&a.lease, "a", &[]).unwrap();
    assert!(b.coord.held_files().unwrap().is_empty());

    // The record goes with the lease.
    a.coord.publish_held(&a.lease, "a", &keys).unwrap();
    cluster.advance(1_500);
    b.coord.keep_alive(&b.lease).unwrap();
    cluster.advance(1_000);
    assert!(b.coord.held_files().unwrap().is_empty());
    // And a server past its own deadline publishes nothing.
    assert!(a.coord.publish_held(&a.lease, "a", &keys).is_err());
}

#[test]
fn every_manifest_pointer_is_read_at_once() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let lead = elect(&a);
    let e1 = region_for(&a, &lead, 1, "a");
    let e2 = region_for(&a, &lead, 20, "a");
    a.open(1);
    a.open(20);
    a.coord.commit_manifest(&a.lease, 1, e1, "cf", 4).unwrap();
    a.coord
        .commit_manifest(&a.lease, 20, e2, "x-00ff", 9)
        .unwrap();
    let pointers = a.coord.manifest_pointers().unwrap();
    let found: Vec<(u64, &str, u64)> = pointers
        .iter()
        .map(|(rid, family, p)| (*rid, family.as_str(), p.manifest))
        .collect();
    assert_eq!(found, vec![(1, "cf", 4), (20, "x-00ff", 9)]);
}
