//! The request budget over the wire: many clients send requests larger than a fair share of
//! a small budget, in every transport and protocol. Every request must be answered (the
//! budget must not deadlock readers holding parts of requests), the bytes held at once must
//! stay within the budget plus one request, and all of it must be returned afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{t, text, TestServer};
use strata_thrift::gen::volo_gen::hbase::{ColumnDescriptor, Mutation};
use volo_thrift::MaybeException;

const BUDGET: usize = 1 << 20;
const VALUE: usize = 600 * 1024;
/// The most one request is charged: its bytes and the reader's look-ahead chunk (a chunk
/// past what it needs), with room for one more chunk. A buffered compact request is charged
/// for its binary transcoding *instead of* its compact bytes, which are freed; charging both
/// let two compact writers go over by a whole value each (a CI failure, peak 2.63 MB).
const LARGEST_CHARGE: usize = VALUE + 3 * 64 * 1024;
/// First reads (at most 8 KiB per connection) are charged without waiting.
const FIRST_READS: usize = 8 * 8 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_requests_share_a_small_budget_without_deadlock() {
    let server = TestServer::start_with(|o| o.limits.max_request_bytes_in_flight = BUDGET).await;
    let admin = server.client(true, false);
    let family = ColumnDescriptor {
        name: Some(text("cf:")),
        ..Default::default()
    };
    admin
        .create_table(t("big"), Some(vec![family]))
        .await
        .unwrap();

    let peak = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (service, peak, done) = (Arc::clone(&server.service), peak.clone(), done.clone());
        tokio::spawn(async move {
            while !done.load(Ordering::Acquire) {
                peak.fetch_max(service.request_budget().in_flight(), Ordering::AcqRel);
                tokio::time::sleep(Duration::from_micros(200)).await;
            }
        })
    };
    let writers: Vec<_> = (0..8u8)
        .map(|w| {
            let client = server.client(w % 2 == 0, w % 4 >= 2);
            tokio::spawn(async move {
                for i in 0..4u8 {
                    let mutation = Mutation {
                        is_delete: Some(false),
                        column: Some(text("cf:v")),
                        value: Some(strata_thrift::gen::volo_gen::hbase::Text(
                            vec![w * 16 + i; VALUE].into(),
                        )),
                        write_to_wal: Some(true),
                    };
                    let row = format!("r{w}-{i}");
                    let reply = client
                        .mutate_row(t("big"), t(&row), Some(vec![mutation]), None)
                        .await
                        .unwrap();
                    assert!(matches!(reply, MaybeException::Ok(())), "{row}");
                }
            })
        })
        .collect();
    for writer in writers {
        tokio::time::timeout(Duration::from_secs(60), writer)
            .await
            .expect("a writer never got its requests answered: the budget deadlocked")
            .unwrap();
    }
    done.store(true, Ordering::Release);
    sampler.await.unwrap();

    let peak = peak.load(Ordering::Acquire);
    assert!(peak >= VALUE, "requests were not charged (peak {peak})");
    assert!(
        peak <= BUDGET + LARGEST_CHARGE + FIRST_READS,
        "peak {peak} over budget + one request"
    );
    // Each connection returns its last request's charge when it reads the next one (or
    // closes); the clients are idle now.
    for _ in 0..100 {
        if server.service.request_budget().in_flight() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.service.request_budget().in_flight(), 0);

    let reader = server.client(false, false);
    for w in 0..8u8 {
        for i in 0..4u8 {
            let row = format!("r{w}-{i}");
            let MaybeException::Ok(got) = reader
                .get(t("big"), t(&row), t("cf:v"), None)
                .await
                .unwrap()
            else {
                panic!("get {row} failed");
            };
            assert_eq!(got.len(), 1, "{row}");
            let value = got[0].value.as_ref().unwrap();
            assert!(value.0.len() == VALUE && value.0.iter().all(|&b| b == w * 16 + i));
        }
    }
}
