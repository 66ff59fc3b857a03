//! The acknowledgement rule: a server's own deadline passes before etcd can expire it.

use super::*;
use crate::coordinator::MembershipEvent;
use crate::ErrorKind;

#[test]
fn a_server_whose_keepalives_fail_stops_before_etcd_lets_a_new_owner_in() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let m = Server::start(&cluster, "m");
    let lead = elect(&m);
    let epoch = region_for(&m, &lead, 1, "a");
    assert_eq!(a.open(1), epoch);

    cluster.advance(500);
    a.coord.keep_alive(&a.lease).unwrap(); // sent at t0+500: deadline t0+2300
    m.coord.keep_alive(&m.lease).unwrap();
    a.coord.kv().set_reachable(false);
    cluster.advance(500);
    let err = a.coord.keep_alive(&a.lease).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(
        err.to_string().contains("etcd at memory://etcd (a)"),
        "{err}"
    );

    cluster.advance(1_299); // t0+2299: still valid by its own clock
    m.coord.keep_alive(&m.lease).unwrap();
    assert!(a.lease.is_valid(cluster.clock_now()));
    cluster.advance(1); // t0+2300: its deadline
    assert!(!a.lease.is_valid(cluster.clock_now()));
    let err = a
        .coord
        .commit_manifest(&a.lease, 1, epoch, "cf", 9)
        .unwrap_err();
    assert!(err.is_lease_expired() && err.kind().is_retryable(), "{err}");

    // etcd still holds the lease until t0+2500: the master cannot see `a` gone yet.
    assert!(m.coord.live_servers().unwrap().iter().any(|s| s.sid == "a"));
    cluster.advance(199);
    assert!(m.coord.live_servers().unwrap().iter().any(|s| s.sid == "a"));
    cluster.advance(1);
    assert!(!m.coord.live_servers().unwrap().iter().any(|s| s.sid == "a"));
    assert_eq!(
        m.coord.owner(1).unwrap(),
        None,
        "the /own key went with the lease"
    );

    // When etcd comes back, the old lease is gone for good: register again.
    a.coord.kv().set_reachable(true);
    assert!(a.coord.keep_alive(&a.lease).unwrap_err().is_lease_expired());
    let again = Server::start(&cluster, "a");
    assert!(again.incarnation > a.incarnation);
}

#[test]
fn a_server_resumes_when_etcd_returns_before_its_lease_expires_there() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    a.coord.kv().set_reachable(false);
    cluster.advance(1_900);
    assert!(a.lease.check(cluster.clock_now()).is_err());
    a.coord.kv().set_reachable(true);
    a.coord.keep_alive(&a.lease).unwrap();
    assert!(a.lease.is_valid(cluster.clock_now()));
    assert_eq!(a.coord.live_servers().unwrap().len(), 1);
}

#[test]
fn membership_watch_sees_joins_and_lease_expiry() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let observer = cluster.node("observer");
    let (live, watch) = observer.watch_servers().unwrap();
    assert_eq!(live.len(), 1);
    assert_eq!(live[0].incarnation, a.incarnation);
    let b = Server::start(&cluster, "b");
    match watch.try_next().unwrap().unwrap() {
        MembershipEvent::Joined(server) => assert_eq!(
            (server.sid, server.incarnation),
            ("b".into(), b.incarnation)
        ),
        other => panic!("{other:?}"),
    }
    cluster.advance(1_000);
    b.coord.keep_alive(&b.lease).unwrap();
    cluster.advance(1_000); // a's lease (granted at t0) expires at t0+2000
    assert_eq!(
        watch.try_next().unwrap().unwrap(),
        MembershipEvent::Left { sid: "a".into() }
    );
    assert!(watch.try_next().is_none());
    let dup = cluster.node("dup");
    let lease = dup.grant_lease().unwrap();
    assert!(dup
        .register_server(&lease, "b", "x:1")
        .unwrap_err()
        .is_fenced());
}
