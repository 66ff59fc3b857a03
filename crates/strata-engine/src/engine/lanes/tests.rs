#![allow(clippy::disallowed_methods)] // these tests race real threads in real time

use super::*;

fn q(lane: Lane, tier: usize) -> Queue {
    Queue { lane, tier }
}

fn load_of(s: &Scheduler, queue: Queue) -> LaneLoad {
    s.load()
        .into_iter()
        .find(|(at, _)| *at == queue)
        .map(|(_, load)| load)
        .unwrap()
}

#[test]
fn tasks_are_deduplicated_per_kind_across_compaction_lanes() {
    let s = Scheduler::new(true, 1);
    s.push(Queue::first(Lane::Flush), 1);
    s.push(Queue::first(Lane::Flush), 1);
    s.push(Queue::first(Lane::SmallCompaction), 1);
    s.push(Queue::first(Lane::LargeCompaction), 1);
    assert!(!s.wants_compaction(1));
    assert!(s.wants_compaction(2));
    let load: Vec<u64> = s.load().iter().map(|(_, l)| l.queued).collect();
    assert_eq!(load, [1, 1, 0]);
}

#[test]
fn tasks_are_deduplicated_per_kind_across_tiers() {
    let s = Scheduler::new(true, 2);
    s.push(q(Lane::Flush, 0), 1);
    s.push(q(Lane::Flush, 1), 1);
    s.push(q(Lane::SmallCompaction, 1), 1);
    s.push(q(Lane::LargeCompaction, 0), 1);
    let load: Vec<u64> = s.load().iter().map(|(_, l)| l.queued).collect();
    assert_eq!(load, [1, 0, 0, 0, 1, 0]);
}

#[test]
fn a_busy_region_waits_while_other_regions_pass() {
    let s = Scheduler::new(true, 1);
    s.push(Queue::first(Lane::SmallCompaction), 1);
    let first = s.next(Queue::first(Lane::SmallCompaction)).unwrap();
    assert_eq!(first.region, 1);
    // Region 1 is compacting: its next compaction waits, in the other lane too.
    s.push(Queue::first(Lane::LargeCompaction), 1);
    s.push(Queue::first(Lane::LargeCompaction), 2);
    let other = s.next(Queue::first(Lane::LargeCompaction)).unwrap();
    assert_eq!(other.region, 2, "region 2 passed the busy region 1");
    // A flush of the compacting region is not held back.
    s.push(Queue::first(Lane::Flush), 1);
    assert_eq!(s.next(Queue::first(Lane::Flush)).unwrap().region, 1);
    assert_eq!(
        load_of(&s, Queue::first(Lane::LargeCompaction)),
        LaneLoad {
            queued: 1,
            running: 1
        }
    );
    drop(first);
    drop(other);
    assert_eq!(
        s.next(Queue::first(Lane::LargeCompaction)).unwrap().region,
        1
    );
}

#[test]
fn a_region_busy_in_one_tier_waits_in_another() {
    let s = Scheduler::new(true, 2);
    s.push(q(Lane::Flush, 1), 1);
    let slow = s.next(q(Lane::Flush, 1)).unwrap();
    // Region 1's next flush was routed to tier 0 (its families moved): it still waits for
    // the one running, while region 2 passes.
    s.push(q(Lane::Flush, 0), 1);
    s.push(q(Lane::Flush, 0), 2);
    assert_eq!(s.next(q(Lane::Flush, 0)).unwrap().region, 2);
    assert_eq!(load_of(&s, q(Lane::Flush, 0)).queued, 1);
    drop(slow);
    assert_eq!(s.next(q(Lane::Flush, 0)).unwrap().region, 1);
}

#[test]
fn each_tier_has_its_own_queue() {
    let s = Scheduler::new(true, 2);
    s.push(q(Lane::Flush, 1), 7);
    s.push(q(Lane::Flush, 0), 8);
    let fast = s.next(q(Lane::Flush, 0)).unwrap();
    assert_eq!(fast.region, 8, "tier 0 takes only its own task");
    assert_eq!(s.next(q(Lane::Flush, 1)).unwrap().region, 7);
    // A tier past the last one is the last one.
    s.push(q(Lane::Flush, 5), 9);
    assert_eq!(load_of(&s, q(Lane::Flush, 1)).queued, 1);
    assert_eq!(s.tiers(), 2);
}

#[test]
fn a_waiting_thread_wakes_for_its_queue_and_for_stop() {
    let s = std::sync::Arc::new(Scheduler::new(true, 2));
    let waiter = {
        let s = std::sync::Arc::clone(&s);
        std::thread::spawn(move || {
            let first = s.next(q(Lane::Flush, 1)).map(|t| t.region);
            (first, s.next(q(Lane::Flush, 1)).is_none())
        })
    };
    s.push(q(Lane::SmallCompaction, 1), 7); // another lane's task does not take the waiter
    s.push(q(Lane::Flush, 0), 8); // nor another tier's
    std::thread::sleep(std::time::Duration::from_millis(20));
    s.push(q(Lane::Flush, 1), 9);
    std::thread::sleep(std::time::Duration::from_millis(20));
    s.stop();
    assert_eq!(waiter.join().unwrap(), (Some(9), true));
    assert!(
        s.load().iter().all(|(_, l)| l.queued == 0),
        "stop drops waiting tasks"
    );
}

#[test]
fn a_disabled_scheduler_queues_nothing() {
    let s = Scheduler::new(false, 1);
    s.push(Queue::first(Lane::Flush), 1);
    assert!(!s.wants_compaction(1));
    assert_eq!(load_of(&s, Queue::first(Lane::Flush)).queued, 0);
}
