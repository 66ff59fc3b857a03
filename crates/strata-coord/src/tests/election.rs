//! Master election: one master at a time, and a deposed one writes nothing.

use super::*;
use crate::error::Error;

#[test]
fn a_deposed_master_cannot_write_even_if_its_request_was_in_flight() {
    let cluster = Arc::new(Cluster::new());
    let m1 = Server::start(&cluster, "m1");
    let m2 = Arc::new(Server::start(&cluster, "m2"));
    let lead1 = elect(&m1);
    match m2.coord.campaign(&m2.lease, "m2", "m2:1").unwrap() {
        Campaign::Lost(Some(current)) => {
            assert_eq!((current.sid.as_str(), current.term), ("m1", lead1.term))
        }
        other => panic!("{other:?}"),
    }
    // m1 checks its lease, then pauses; its lease expires and m2 wins.
    let (c, m2b) = (cluster.clone(), m2.clone());
    m1.coord.kv().before_next_txn(move || {
        c.advance(1_000);
        m2b.coord.keep_alive(&m2b.lease).unwrap();
        c.advance(1_000);
        let lead2 = elect(&m2b);
        assert!(lead2.term > 0);
    });
    let record = RegionRecord::new("default:t", b"", b"");
    let err = m1.coord.create_region(&lead1, 1, &record).unwrap_err();
    assert!(
        matches!(err, Error::NotLeader(_)) || err.is_lease_expired(),
        "{err}"
    );
    assert!(m1.coord.region(1).unwrap().is_none());
}

#[test]
fn a_master_that_resigned_cannot_write_and_the_next_one_can() {
    let cluster = Cluster::new();
    let m1 = Server::start(&cluster, "m1");
    let m2 = Server::start(&cluster, "m2");
    let lead1 = elect(&m1);
    let (current, watch) = m2.coord.observe_master().unwrap();
    assert_eq!(current.unwrap().sid, "m1");
    m1.coord.resign(&lead1).unwrap();
    assert!(watch.try_next().is_some(), "the observer sees the key go");
    let lead2 = elect(&m2);
    assert!(lead2.term > lead1.term);
    let record = RegionRecord::new("default:t", b"", b"");
    let err = m1.coord.create_region(&lead1, 1, &record).unwrap_err();
    assert!(matches!(err, Error::NotLeader(_)), "{err}");
    m2.coord.create_region(&lead2, 1, &record).unwrap();
    // A lost data compare under a held term is Fenced, not NotLeader.
    let err = m2.coord.create_region(&lead2, 1, &record).unwrap_err();
    assert!(matches!(err, Error::Fenced(_)), "{err}");
    // Resigning a term that is no longer held changes nothing.
    m1.coord.resign(&lead1).unwrap();
    assert_eq!(m1.coord.master().unwrap().unwrap().sid, "m2");
}

#[test]
fn only_the_master_retires_a_replayed_stream() {
    let cluster = Cluster::new();
    let m1 = Server::start(&cluster, "m1");
    let m2 = Server::start(&cluster, "m2");
    let lead1 = elect(&m1);
    m1.coord.retire_stream(&lead1, "7-1").unwrap();
    m1.coord.resign(&lead1).unwrap();
    let err = m1.coord.retire_stream(&lead1, "8-1").unwrap_err();
    assert!(matches!(err, Error::NotLeader(_)), "{err}");
    let lead2 = elect(&m2);
    m2.coord.retire_stream(&lead2, "9-2").unwrap();
    assert_eq!(
        m2.coord.retired_streams().unwrap(),
        vec!["7-1".to_string(), "9-2".to_string()]
    );
    assert!(m2.coord.retire_stream(&lead2, "bad/name").is_err());
    m2.coord.publish_stream_progress(&lead2, "5-3", 42).unwrap();
    let records = m2.coord.stream_records().unwrap();
    let live = records.iter().find(|(n, _)| n == "5-3").unwrap();
    assert_eq!(
        (live.1.state.as_str(), live.1.first_live_id),
        ("live", Some(42))
    );
    assert_eq!(
        m2.coord.retired_streams().unwrap().len(),
        2,
        "a live stream is not retired"
    );
}
