//! The reader on a real service: row sets, order, limits and chunking end to end.

use std::sync::Arc;

use bytes::Bytes;
use pb::row_range::{EndKey, StartKey};
use strata_engine::{Cell, Durability, FamilyOptions};
use strata_server::ServiceOptions;

use super::*;
use crate::data::chunker::tests::decode;
use crate::data::sampler;

fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

/// A table split at "d" and "k" with rows a..m, each with two versions of cf:q.
fn service(dir: &std::path::Path) -> Arc<Service> {
    let svc = Service::open(ServiceOptions::new(dir)).unwrap();
    let table = TableName::parse("t").unwrap();
    let family = FamilyOptions {
        max_versions: u32::MAX,
        ..FamilyOptions::new("cf")
    };
    svc.admin()
        .create_table(&table, vec![family], vec![b("d"), b("k")])
        .unwrap();
    let mut cells = Vec::new();
    for row in "abcdefghijklm".chars() {
        for ts in [1, 2] {
            let value = format!("{row}{ts}");
            cells.push(Cell::put(row.to_string(), "cf", "q", ts, value));
        }
    }
    svc.rows()
        .mutate(&table, cells, Durability::SyncWal)
        .unwrap();
    svc
}

fn request(rows: Option<pb::RowSet>, limit: i64, reversed: bool) -> pb::ReadRowsRequest {
    pb::ReadRowsRequest {
        table_name: "projects/p/instances/default/tables/t".into(),
        rows,
        rows_limit: limit,
        reversed,
        ..Default::default()
    }
}

fn run(svc: &Service, req: pb::ReadRowsRequest) -> Vec<pb::ReadRowsResponse> {
    let plan = ReadPlan::from_request(&req).unwrap();
    let mut out = Vec::new();
    let mut sampler = sampler::seeded(1);
    read(svc, &plan, &mut sampler, Limits::default(), |m| {
        out.push(m);
        true
    })
    .unwrap();
    out
}

fn keys(messages: &[pb::ReadRowsResponse]) -> String {
    let with_rows: Vec<pb::ReadRowsResponse> = messages
        .iter()
        .filter(|m| !m.chunks.is_empty())
        .cloned()
        .collect();
    decode(&with_rows)
        .into_iter()
        .map(|(k, _)| String::from_utf8(k.to_vec()).unwrap())
        .collect()
}

fn range(start: &str, end: &str) -> pb::RowRange {
    pb::RowRange {
        start_key: Some(StartKey::StartKeyClosed(b(start))),
        end_key: Some(EndKey::EndKeyOpen(b(end))),
    }
}

#[test]
fn whole_table_in_order_with_every_version() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    let messages = run(&svc, request(None, 0, false));
    assert_eq!(keys(&messages), "abcdefghijklm");
    let rows = decode(&messages);
    let ts: Vec<i64> = rows[0].1.iter().map(|c| c.timestamp_micros).collect();
    assert_eq!(
        ts,
        vec![2000, 1000],
        "every version, newest first, in microseconds"
    );
}

#[test]
fn overlapping_ranges_and_duplicate_keys_return_each_row_once() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    let set = pb::RowSet {
        row_keys: vec![b("b"), b("b"), b("l"), b("zz")],
        row_ranges: vec![range("c", "f"), range("e", "h"), range("a", "c")],
    };
    assert_eq!(
        keys(&run(&svc, request(Some(set.clone()), 0, false))),
        "abcdefgl"
    );
    assert_eq!(
        keys(&run(&svc, request(Some(set.clone()), 0, true))),
        "lgfedcba"
    );
    assert_eq!(keys(&run(&svc, request(Some(set), 3, true))), "lgf");
}

#[test]
fn reversed_reads_respect_open_and_closed_bounds_across_regions() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    let set = pb::RowSet {
        row_keys: vec![],
        row_ranges: vec![pb::RowRange {
            start_key: Some(StartKey::StartKeyOpen(b("c"))),
            end_key: Some(EndKey::EndKeyClosed(b("k"))),
        }],
    };
    assert_eq!(
        keys(&run(&svc, request(Some(set.clone()), 0, false))),
        "defghijk"
    );
    assert_eq!(keys(&run(&svc, request(Some(set), 0, true))), "kjihgfed");
    assert_eq!(keys(&run(&svc, request(None, 2, true))), "ml");
}

#[test]
fn rows_limit_stops_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    assert_eq!(keys(&run(&svc, request(None, 4, false))), "abcd");
    let bad = ReadPlan::from_request(&request(None, -1, false)).unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
}

#[test]
fn a_filtered_out_tail_is_reported_as_last_scanned() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    let mut req = request(None, 0, false);
    req.filter = Some(pb::RowFilter {
        filter: Some(pb::row_filter::Filter::BlockAllFilter(true)),
    });
    let messages = run(&svc, req);
    assert_eq!(messages.len(), 1);
    assert!(messages[0].chunks.is_empty());
    assert_eq!(messages[0].last_scanned_row_key, b("m"));
}

#[test]
fn the_reader_stops_when_the_client_goes_away() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    let plan = ReadPlan::from_request(&request(None, 0, false)).unwrap();
    let tiny = Limits {
        target: 10,
        split_above: 1000,
        piece: 100,
    };
    let mut calls = 0;
    read(&svc, &plan, &mut sampler::seeded(1), tiny, |_| {
        calls += 1;
        false
    })
    .unwrap();
    assert_eq!(
        calls, 1,
        "no message is produced after the sink refuses one"
    );
}

#[test]
fn a_missing_table_fails() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    let mut req = request(None, 0, false);
    req.table_name = "projects/p/instances/default/tables/nope".into();
    let plan = ReadPlan::from_request(&req).unwrap();
    let err = read(
        &svc,
        &plan,
        &mut sampler::seeded(1),
        Limits::default(),
        |_| true,
    )
    .unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
}

/// Collects what `read_rows` streams (inline for one key, through the blocking pool
/// otherwise).
fn streamed(
    svc: &Arc<Service>,
    req: pb::ReadRowsRequest,
) -> Result<Vec<pb::ReadRowsResponse>, Status> {
    use tokio_stream::StreamExt;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    runtime.block_on(async {
        let stream = read_rows(Arc::clone(svc), req, sampler::seeded(1)).await?;
        stream.collect::<Result<Vec<_>, Status>>().await
    })
}

fn one_key(key: &str) -> Option<pb::RowSet> {
    Some(pb::RowSet {
        row_keys: vec![b(key)],
        row_ranges: vec![],
    })
}

#[test]
fn point_reads_answer_inline_exactly_as_the_streamed_path() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    for key in ["a", "d", "m", "zz"] {
        let req = request(one_key(key), 0, false);
        assert!(ReadPlan::from_request(&req).unwrap().is_point_read());
        let inline = streamed(&svc, req.clone()).unwrap();
        assert_eq!(inline, run(&svc, req), "key {key}");
        let expected = if key == "zz" { "" } else { key };
        assert_eq!(keys(&inline), expected);
    }
    let two = Some(pb::RowSet {
        row_keys: vec![b("a"), b("m")],
        row_ranges: vec![],
    });
    let req = request(two, 0, false);
    assert!(!ReadPlan::from_request(&req).unwrap().is_point_read());
    assert_eq!(keys(&streamed(&svc, req).unwrap()), "am");
}

#[test]
fn a_point_read_of_a_missing_table_fails_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let svc = service(dir.path());
    let mut req = request(one_key("a"), 0, false);
    req.table_name = "projects/p/instances/default/tables/missing".into();
    let status = streamed(&svc, req).unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound, "{status:?}");
}
