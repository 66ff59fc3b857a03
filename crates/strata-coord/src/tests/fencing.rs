//! Zombies, epoch bumps, splits and moves: each race has exactly one winner.

use super::*;
use crate::error::Error;

/// A server passes its own lease check, then pauses (GC, SIGSTOP) with its commit in
/// flight; meanwhile its lease expires in etcd and the master gives the region to `b`.
#[test]
fn a_paused_zombie_cannot_commit_a_manifest_after_the_master_bumped_the_epoch() {
    let cluster = Arc::new(Cluster::new());
    let a = Server::start(&cluster, "a");
    let b = Arc::new(Server::start(&cluster, "b"));
    let m = Arc::new(Server::start(&cluster, "m"));
    let lead = elect(&m);
    let old_epoch = region_for(&m, &lead, 1, "a");
    a.open(1);
    a.coord
        .commit_manifest(&a.lease, 1, old_epoch, "cf", 5)
        .unwrap();

    let (c, b2, m2) = (cluster.clone(), b.clone(), m.clone());
    a.coord.kv().before_next_txn(move || {
        c.advance(1_000);
        b2.coord.keep_alive(&b2.lease).unwrap();
        m2.coord.keep_alive(&m2.lease).unwrap();
        c.advance(1_500); // a's lease is gone in etcd, and so is its /own key
        assert!(!m2
            .coord
            .live_servers()
            .unwrap()
            .iter()
            .any(|s| s.sid == "a"));
        let epoch = m2.coord.region(1).unwrap().unwrap().epoch;
        m2.coord.assign_region(&lead, 1, epoch, Some("b")).unwrap();
        let new_epoch = b2.open(1);
        b2.coord
            .commit_manifest(&b2.lease, 1, new_epoch, "cf", 6)
            .unwrap();
    });
    let err = a
        .coord
        .commit_manifest(&a.lease, 1, old_epoch, "cf", 7)
        .unwrap_err();
    assert!(err.is_fenced() || err.is_lease_expired(), "{err}");
    let pointer = m.coord.manifest(1, "cf").unwrap().unwrap();
    assert_eq!(pointer.manifest, 6);
    assert_eq!(m.coord.owner(1).unwrap().unwrap().sid, "b");
    check_ownership(&cluster);
}

/// The same zombie, checked by etcd alone: the epoch compare refuses it even though its
/// lease is still valid in etcd (the master moved the region deliberately).
#[test]
fn a_stale_owner_is_fenced_by_the_epoch_compare() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let b = Server::start(&cluster, "b");
    let m = Server::start(&cluster, "m");
    let lead = elect(&m);
    let old_epoch = region_for(&m, &lead, 1, "a");
    a.open(1);
    m.coord
        .assign_region(&lead, 1, old_epoch, Some("b"))
        .unwrap();
    assert_eq!(
        m.coord.owner(1).unwrap(),
        None,
        "the move dropped a's /own key"
    );
    let err = a
        .coord
        .commit_manifest(&a.lease, 1, old_epoch, "cf", 7)
        .unwrap_err();
    assert!(matches!(err, Error::Fenced(_)), "{err}");
    let err = a
        .coord
        .claim_region(&a.lease, "a", a.incarnation, 1, old_epoch)
        .unwrap_err();
    assert!(err.is_fenced(), "{err}");
    b.open(1);
    check_ownership(&cluster);
}

/// Steps of the new owner's side of a move, interleaved with the old owner's one commit.
#[derive(Debug, Clone, Copy)]
enum Step {
    OldOwnerCommits,
    MasterReadsEpoch,
    MasterBumpsEpoch,
    NewOwnerOpens,
    NewOwnerCommits,
}

/// A manifest commit racing an epoch bump, in every interleaving: the old owner's commit
/// is accepted only if it lands before the bump, and the new owner never loses its own.
#[test]
fn a_manifest_commit_racing_an_epoch_bump_in_every_interleaving() {
    use Step::*;
    let others = [
        MasterReadsEpoch,
        MasterBumpsEpoch,
        NewOwnerOpens,
        NewOwnerCommits,
    ];
    for position in 0..=others.len() {
        let mut steps = others.to_vec();
        steps.insert(position, OldOwnerCommits);
        run_interleaving(&steps);
    }
}

fn run_interleaving(steps: &[Step]) {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let b = Server::start(&cluster, "b");
    let m = Server::start(&cluster, "m");
    let lead = elect(&m);
    let old_epoch = region_for(&m, &lead, 1, "a");
    a.open(1);
    let (mut read, mut bumped_at, mut old_commit) = (None, None, None);
    let mut new_epoch = None;
    for step in steps {
        match step {
            Step::OldOwnerCommits => {
                old_commit = Some(a.coord.commit_manifest(&a.lease, 1, old_epoch, "cf", 5));
            }
            Step::MasterReadsEpoch => read = Some(m.coord.region(1).unwrap().unwrap().epoch),
            Step::MasterBumpsEpoch => {
                let epoch = read.unwrap();
                bumped_at = Some(m.coord.assign_region(&lead, 1, epoch, Some("b")).unwrap());
            }
            Step::NewOwnerOpens => new_epoch = Some(b.open(1)),
            Step::NewOwnerCommits => {
                b.coord
                    .commit_manifest(&b.lease, 1, new_epoch.unwrap(), "cf", 6)
                    .unwrap();
            }
        }
        check_ownership(&cluster);
    }
    let old_first = steps
        .iter()
        .position(|s| matches!(s, Step::OldOwnerCommits))
        < steps
            .iter()
            .position(|s| matches!(s, Step::MasterBumpsEpoch));
    let old_commit = old_commit.unwrap();
    assert_eq!(old_commit.is_ok(), old_first, "{steps:?}: {old_commit:?}");
    assert!(bumped_at.is_some());
    let pointer = m.coord.manifest(1, "cf").unwrap().unwrap();
    assert_eq!(
        (pointer.manifest, pointer.epoch),
        (6, new_epoch.unwrap()),
        "{steps:?}"
    );
}

/// A split (by the owner) and a move (by the master) read the same epoch; whichever
/// transaction lands first wins and the other changes nothing.
#[test]
fn a_split_racing_a_move_commits_exactly_one() {
    for split_first in [true, false] {
        let cluster = Cluster::new();
        let a = Server::start(&cluster, "a");
        let _b = Server::start(&cluster, "b");
        let m = Server::start(&cluster, "m");
        let lead = elect(&m);
        let epoch = region_for(&m, &lead, 1, "a");
        a.open(1);
        let daughters = [
            (2, RegionRecord::new("default:t", b"", b"m")),
            (3, RegionRecord::new("default:t", b"m", b"")),
        ];
        let split = || a.coord.commit_split(&a.lease, 1, epoch, daughters.clone());
        let mv = || m.coord.assign_region(&lead, 1, epoch, Some("b"));
        let (split_result, move_result) = if split_first {
            let s = split();
            (s, mv())
        } else {
            let v = mv();
            (split(), v)
        };
        assert_ne!(
            split_result.is_ok(),
            move_result.is_ok(),
            "split_first={split_first}"
        );
        let parent = m.coord.region(1).unwrap().unwrap();
        if split_first {
            assert!(move_result.unwrap_err().is_fenced());
            assert_eq!(parent.record.state, RegionState::Retired);
            assert_eq!(parent.record.successors, vec![2, 3]);
            for id in [2, 3] {
                let daughter = m.coord.region(id).unwrap().unwrap();
                assert_eq!(daughter.record.owner.as_deref(), Some("a"));
                assert_eq!(daughter.epoch, split_result.clone().unwrap());
            }
            assert_eq!(m.coord.owner(1).unwrap(), None);
        } else {
            assert!(split_result.unwrap_err().is_fenced());
            assert_eq!(parent.record.owner.as_deref(), Some("b"));
            assert!(m.coord.region(2).unwrap().is_none());
        }
        check_ownership(&cluster);
    }
}

#[test]
fn a_merge_retires_both_parents_in_one_transaction() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let m = Server::start(&cluster, "m");
    let lead = elect(&m);
    let e1 = region_for(&m, &lead, 1, "a");
    let e2 = region_for(&m, &lead, 2, "a");
    let merged = (3, RegionRecord::new("default:t", b"", b""));
    // A stale epoch for one parent refuses the whole merge.
    let err = a
        .coord
        .commit_merge(&a.lease, [(1, e1), (2, e1)], merged.clone())
        .unwrap_err();
    assert!(err.is_fenced(), "{err}");
    assert!(m.coord.region(3).unwrap().is_none());
    let epoch = a
        .coord
        .commit_merge(&a.lease, [(1, e1), (2, e2)], merged)
        .unwrap();
    let region = m.coord.region(3).unwrap().unwrap();
    assert_eq!(
        (region.epoch, region.record.owner.as_deref()),
        (epoch, Some("a"))
    );
    for id in [1, 2] {
        assert_eq!(
            m.coord.region(id).unwrap().unwrap().record.successors,
            vec![3]
        );
    }
    check_ownership(&cluster);
}

/// Regression (found while writing the split-vs-move race): a move that reads a region the
/// split just retired was refused as `InvalidArgument`, which a master would not retry
/// elsewhere; it is a lost race, so `Fenced`.
#[test]
fn regression_a_move_of_a_retired_region_is_fenced() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let m = Server::start(&cluster, "m");
    let lead = elect(&m);
    let epoch = region_for(&m, &lead, 1, "a");
    let daughters = [
        (2, RegionRecord::new("default:t", b"", b"m")),
        (3, RegionRecord::new("default:t", b"m", b"")),
    ];
    a.coord.commit_split(&a.lease, 1, epoch, daughters).unwrap();
    let retired = m.coord.region(1).unwrap().unwrap().epoch;
    let err = m
        .coord
        .assign_region(&lead, 1, retired, Some("a"))
        .unwrap_err();
    assert!(matches!(err, Error::Fenced(_)), "{err}");
}

/// The master forgets a region no table lists: its record and claim go in one step, only
/// at the epoch it looked at, and only while it is master.
#[test]
fn forgetting_a_region_removes_its_claim_and_loses_to_any_change() {
    let cluster = Arc::new(Cluster::new());
    let a = Server::start(&cluster, "a");
    let m = Server::start(&cluster, "m");
    let lead = elect(&m);
    let epoch = region_for(&m, &lead, 7, "a");
    a.open(7);
    a.coord
        .commit_manifest(&a.lease, 7, epoch, "cf", 3)
        .unwrap();
    // A change since the master looked (here a move) wins over the cleanup.
    let moved = m.coord.assign_region(&lead, 7, epoch, Some("m")).unwrap();
    let err = m.coord.forget_region(&lead, 7, epoch).unwrap_err();
    assert!(err.is_fenced(), "{err}");
    assert!(m.coord.region(7).unwrap().is_some());
    m.open(7);
    assert!(m.coord.owner(7).unwrap().is_some());
    m.coord.forget_region(&lead, 7, moved).unwrap();
    assert!(m.coord.region(7).unwrap().is_none());
    assert!(m.coord.owner(7).unwrap().is_none());
    // The manifest pointer stays: the id is never reused while its files exist.
    assert_eq!(m.coord.manifest(7, "cf").unwrap().unwrap().manifest, 3);
    check_ownership(&cluster);
    // A server that is not master cannot forget anything.
    let other = region_for(&m, &lead, 8, "a");
    m.coord.resign(&lead).unwrap();
    assert!(m.coord.forget_region(&lead, 8, other).is_err());
    assert!(m.coord.region(8).unwrap().is_some());
}

/// A claim is not yet serving: a dead owner's stream may be retired only once the new
/// owner marked the region serving (replayed and flushed), and a new epoch clears it.
#[test]
fn a_claim_serves_only_once_marked_and_a_new_epoch_clears_it() {
    let cluster = Cluster::new();
    let a = Server::start(&cluster, "a");
    let m = Server::start(&cluster, "m");
    let lead = elect(&m);
    let epoch = region_for(&m, &lead, 1, "a");
    a.coord
        .claim_region(&a.lease, "a", a.incarnation, 1, epoch)
        .unwrap();
    assert!(!m.coord.owner(1).unwrap().unwrap().serving);
    a.coord
        .mark_serving(&a.lease, "a", a.incarnation, 1, epoch)
        .unwrap();
    assert!(m.coord.owner(1).unwrap().unwrap().serving);
    assert!(m.coord.owners().unwrap()[0].1.serving);
    let moved = m.coord.assign_region(&lead, 1, epoch, Some("a")).unwrap();
    let err = a
        .coord
        .mark_serving(&a.lease, "a", a.incarnation, 1, epoch)
        .unwrap_err();
    assert!(err.is_fenced(), "{err}");
    a.coord
        .claim_region(&a.lease, "a", a.incarnation, 1, moved)
        .unwrap();
    assert!(!m.coord.owner(1).unwrap().unwrap().serving);
}
