#![allow(clippy::disallowed_methods)] // real time and randomness in these tests
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::*;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap()
}

/// Whether `future` finishes within a short while.
async fn finishes<F: std::future::Future>(future: F) -> bool {
    tokio::time::timeout(Duration::from_millis(50), future)
        .await
        .is_ok()
}

#[test]
fn charges_within_the_capacity_proceed_and_are_returned_on_drop() {
    runtime().block_on(async {
        let budget = RequestBudget::new(100);
        let mut a = budget.start();
        let mut b = budget.start();
        assert!(finishes(a.grow_to(60)).await);
        assert!(finishes(b.grow_to(40)).await);
        assert_eq!(budget.in_flight(), 100);
        // Growing to what it already holds is free.
        assert!(finishes(b.grow_to(10)).await);
        assert_eq!(b.bytes(), 40);
        drop(a);
        assert_eq!(budget.in_flight(), 40);
        drop(b);
        assert_eq!(budget.in_flight(), 0);
    });
}

#[test]
fn a_younger_request_waits_until_bytes_are_returned() {
    runtime().block_on(async {
        let budget = RequestBudget::new(100);
        let mut old = budget.start();
        old.grow_to(80).await;
        let mut young = budget.start();
        assert!(!finishes(young.grow_to(30)).await, "30 more does not fit");
        assert_eq!(budget.in_flight(), 80);
        let waiter = tokio::spawn(async move {
            young.grow_to(30).await;
            young
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(old);
        let young = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("the waiter is woken when the old request ends")
            .unwrap();
        assert_eq!(young.bytes(), 30);
        assert_eq!(budget.in_flight(), 30);
    });
}

#[test]
fn the_oldest_request_may_go_over_the_capacity() {
    runtime().block_on(async {
        let budget = RequestBudget::new(100);
        let mut old = budget.start();
        let mut young = budget.start();
        young.grow_to(90).await;
        assert!(finishes(old.grow_to(500)).await, "the oldest never waits");
        assert_eq!(budget.in_flight(), 590);
        let mut third = budget.start();
        assert!(!finishes(third.grow_to(1)).await);
        drop(old);
        // Now `young` is the oldest: it may grow past the capacity, `third` may not.
        assert!(finishes(young.grow_to(200)).await);
        assert!(!finishes(third.grow_to(1)).await);
    });
}

#[test]
fn an_idle_request_that_holds_nothing_does_not_block_the_budget_forever() {
    runtime().block_on(async {
        let budget = RequestBudget::new(10);
        // Started but never grows (a client that stopped after one byte): the others are
        // younger, but it holds nothing, so they still fit.
        let _stalled = budget.start();
        let mut a = budget.start();
        assert!(finishes(a.grow_to(10)).await);
    });
}

/// Many readers receive requests in small steps, each request bigger than a fair share of
/// the budget: every one must finish (no deadlock), and the bytes held at once never exceed
/// the capacity plus one request.
#[test]
fn concurrent_readers_in_steps_all_finish_within_capacity_plus_one_request() {
    runtime().block_on(async {
        const CAPACITY: usize = 1000;
        const REQUEST: usize = 600;
        let budget = RequestBudget::new(CAPACITY);
        let peak = Arc::new(AtomicUsize::new(0));
        let readers: Vec<_> = (0..12)
            .map(|reader| {
                let (budget, peak) = (budget.clone(), Arc::clone(&peak));
                tokio::spawn(async move {
                    for request in 0..20 {
                        let mut charge = budget.start();
                        let step = 50 + (reader * 7 + request * 13) % 100;
                        let mut held = 0;
                        while held < REQUEST {
                            held = (held + step).min(REQUEST);
                            charge.grow_to(held).await;
                            peak.fetch_max(budget.in_flight(), Ordering::AcqRel);
                            tokio::task::yield_now().await;
                        }
                    }
                })
            })
            .collect();
        for reader in readers {
            tokio::time::timeout(Duration::from_secs(20), reader)
                .await
                .expect("a reader is stuck: the budget deadlocked")
                .unwrap();
        }
        assert!(peak.load(Ordering::Acquire) <= CAPACITY + REQUEST);
        assert_eq!(budget.in_flight(), 0);
    });
}

#[test]
fn bytes_already_read_are_charged_without_waiting() {
    runtime().block_on(async {
        let budget = RequestBudget::new(100);
        let mut old = budget.start();
        old.grow_to(100).await;
        let mut small = budget.start();
        small.grow_to_now(30);
        assert_eq!(budget.in_flight(), 130);
        assert!(
            !finishes(small.grow_to(31)).await,
            "more than that still waits"
        );
        drop(small);
        assert_eq!(budget.in_flight(), 100);
    });
}

#[test]
fn set_now_moves_the_charge_both_ways_and_wakes_waiters_when_lowered() {
    runtime().block_on(async {
        let budget = RequestBudget::new(100);
        let mut old = budget.start();
        old.grow_to(90).await;
        let mut young = budget.start();
        let waiter = tokio::spawn(async move {
            young.grow_to(50).await;
            young
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "50 more does not fit beside 90");
        // The old request's bytes were replaced by a smaller form.
        old.set_now(40);
        assert_eq!(old.bytes(), 40);
        let young = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("lowering a charge wakes the waiters")
            .unwrap();
        assert_eq!(budget.in_flight(), 90);
        // Raising at once goes over the capacity without waiting.
        old.set_now(70);
        assert_eq!(budget.in_flight(), 120);
        drop(old);
        drop(young);
        assert_eq!(budget.in_flight(), 0);
    });
}
