//! The data path as hbase-client drives it: create over MasterService, locate in
//! hbase:meta, then Mutate, Get, Multi with cell blocks, and Scan region by region.

mod common;

use bytes::{Bytes, BytesMut};
use common::{create_table, locate, region_name_of, region_spec, start, Client};
use strata_engine::Cell;
use strata_hrpc::pb;
use strata_hrpc::wire::cellblock;

const KV_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";

fn put(row: &[u8], value: &[u8]) -> pb::MutationProto {
    pb::MutationProto {
        row: Some(Bytes::copy_from_slice(row)),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(Bytes::from_static(b"q")),
                value: Some(Bytes::copy_from_slice(value)),
                ..Default::default()
            }],
        }],
        ..Default::default()
    }
}

fn get(row: &[u8]) -> pb::Get {
    pb::Get {
        row: Bytes::copy_from_slice(row),
        ..Default::default()
    }
}

async fn read_value(client: &mut Client, region: &Bytes, row: &[u8]) -> Option<Bytes> {
    let request = pb::GetRequest {
        region: region_spec(region),
        get: get(row),
    };
    let answer = client.call("Get", &request).await.get();
    answer.result?.cell.first().and_then(|c| c.value.clone())
}

#[tokio::test]
async fn a_put_is_read_back_through_the_region_meta_names() {
    let server = start().await;
    create_table(server.addr, "t", &[b"m"]).await;
    let mut client = Client::connect(server.addr, "ClientService", Some(KV_CODEC)).await;
    let low = locate(&mut client, "t", b"a").await;
    let high = locate(&mut client, "t", b"x").await;
    assert_eq!(low.end_key(), b"m");
    assert_eq!(high.start_key(), b"m");
    let region = region_name_of(&high);
    let request = pb::MutateRequest {
        region: region_spec(&region),
        mutation: put(b"x1", b"v1"),
        condition: None,
        nonce_group: None,
    };
    let answer: pb::MutateResponse = client.call("Mutate", &request).await.decode();
    assert!(answer.processed());
    assert_eq!(
        read_value(&mut client, &region, b"x1").await.as_deref(),
        Some(&b"v1"[..])
    );
    assert_eq!(read_value(&mut client, &region, b"x2").await, None);
}

#[tokio::test]
async fn a_stale_region_name_is_not_serving() {
    let server = start().await;
    create_table(server.addr, "t", &[]).await;
    let mut client = Client::connect(server.addr, "ClientService", None).await;
    let info = locate(&mut client, "t", b"a").await;
    let stale = strata_hrpc::region_name::region_name("t", info.start_key(), info.region_id + 1000);
    let request = pb::GetRequest {
        region: region_spec(&stale),
        get: get(b"a"),
    };
    let answer = client.call("Get", &request).await;
    assert_eq!(
        answer.exception_class(),
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
}

#[tokio::test]
async fn multi_puts_in_a_cell_block_then_a_scan_stops_at_the_region_edge() {
    let server = start().await;
    create_table(server.addr, "t", &[b"m"]).await;
    let mut client = Client::connect(server.addr, "ClientService", Some(KV_CODEC)).await;
    let low = region_name_of(&locate(&mut client, "t", b"a").await);
    let rows: Vec<Vec<u8>> = (0..10u8).map(|i| vec![b'a' + i]).collect();
    let mut block = BytesMut::new();
    let mut actions = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        cellblock::encode(
            &Cell::put(row.clone(), b"f".to_vec(), b"q".to_vec(), 5, b"v".to_vec()),
            &mut block,
        );
        actions.push(pb::Action {
            index: Some(i as u32),
            mutation: Some(pb::MutationProto {
                row: Some(Bytes::from(row.clone())),
                mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
                associated_cell_count: Some(1),
                ..Default::default()
            }),
            get: None,
        });
    }
    let request = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region_spec(&low),
            atomic: None,
            action: actions,
            condition: None,
        }],
        ..Default::default()
    };
    let id = client.send("Multi", &request, &block).await;
    let answer = client.receive().await.unwrap();
    assert_eq!(answer.header.call_id(), id);
    let multi: pb::MultiResponse = answer.decode();
    let results = &multi.region_action_result[0].result_or_exception;
    assert_eq!(results.len(), 10);
    assert!(results.iter().all(|r| r.exception.is_none()));
    // A row past the split lands in the other region; the scan of the low one ends at "m".
    let high = region_name_of(&locate(&mut client, "t", b"z").await);
    let request = pb::MutateRequest {
        region: region_spec(&high),
        mutation: put(b"zz", b"v"),
        condition: None,
        nonce_group: None,
    };
    client
        .call("Mutate", &request)
        .await
        .decode::<pb::MutateResponse>();
    let open = pb::ScanRequest {
        region: Some(region_spec(&low)),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(4),
        ..Default::default()
    };
    let first = client.call("Scan", &open).await.scan();
    assert_eq!(first.results.len(), 4);
    assert!(first.more_results_in_region());
    let mut seen = first.results.len();
    let mut seq = 0;
    loop {
        let next = pb::ScanRequest {
            scanner_id: first.scanner_id,
            number_of_rows: Some(4),
            next_call_seq: Some(seq),
            ..Default::default()
        };
        seq += 1;
        let answer = client.call("Scan", &next).await.scan();
        seen += answer.results.len();
        if !answer.more_results_in_region() {
            assert!(answer.more_results(), "the next region still has rows");
            break;
        }
    }
    assert_eq!(seen, 10, "the low region's rows, none of the high one's");
}

/// Rows of one scan call, opened on `region` with `scan`, closing the scanner.
async fn scan_rows(client: &mut Client, region: &Bytes, scan: pb::Scan) -> Vec<Bytes> {
    let open = pb::ScanRequest {
        region: Some(region_spec(region)),
        scan: Some(scan),
        number_of_rows: Some(100),
        close_scanner: Some(true),
        ..Default::default()
    };
    let answer = client.call("Scan", &open).await.scan();
    answer
        .results
        .iter()
        .map(|r| r.cell[0].row.clone().unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn a_reversed_scan_from_above_a_region_answers_only_that_regions_rows() {
    // Found by the hrpc_scan fuzz target's model: the service scanner read down from the
    // start row, so rows of the regions above came back from the lower region too.
    let server = start().await;
    create_table(server.addr, "rev", &[b"g", b"p"]).await;
    let mut client = Client::connect(server.addr, "ClientService", Some(KV_CODEC)).await;
    for row in [&b"a"[..], b"h", b"p", b"q"] {
        let region = region_name_of(&locate(&mut client, "rev", row).await);
        let request = pb::MutateRequest {
            region: region_spec(&region),
            mutation: put(row, b"v"),
            condition: None,
            nonce_group: None,
        };
        client
            .call("Mutate", &request)
            .await
            .decode::<pb::MutateResponse>();
    }
    let middle = region_name_of(&locate(&mut client, "rev", b"h").await);
    let reversed = |start: &[u8], include_start: bool| pb::Scan {
        start_row: Some(Bytes::copy_from_slice(start)),
        reversed: Some(true),
        include_start_row: Some(include_start),
        ..Default::default()
    };
    for (start, include) in [(&b"z"[..], true), (b"p", true), (b"p", false), (b"", true)] {
        assert_eq!(
            scan_rows(&mut client, &middle, reversed(start, include)).await,
            vec![Bytes::from_static(b"h")],
            "reversed from {start:?} in [g, p)"
        );
    }
    // Within the region the start row still bounds the scan.
    assert!(scan_rows(&mut client, &middle, reversed(b"h", false))
        .await
        .is_empty());
}

#[tokio::test]
async fn a_scan_call_out_of_sequence_is_refused() {
    let server = start().await;
    create_table(server.addr, "t", &[]).await;
    let mut client = Client::connect(server.addr, "ClientService", None).await;
    let region = region_name_of(&locate(&mut client, "t", b"a").await);
    for row in [b"a", b"b", b"c"] {
        let request = pb::MutateRequest {
            region: region_spec(&region),
            mutation: put(row, b"v"),
            condition: None,
            nonce_group: None,
        };
        client
            .call("Mutate", &request)
            .await
            .decode::<pb::MutateResponse>();
    }
    let open = pb::ScanRequest {
        region: Some(region_spec(&region)),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(1),
        ..Default::default()
    };
    let first = client.call("Scan", &open).await.scan();
    let wrong = pb::ScanRequest {
        scanner_id: first.scanner_id,
        number_of_rows: Some(1),
        next_call_seq: Some(5),
        ..Default::default()
    };
    let answer = client.call("Scan", &wrong).await;
    assert!(answer
        .exception_class()
        .ends_with("OutOfOrderScannerNextException"));
}

#[tokio::test]
async fn check_and_put_applies_only_when_the_value_matches() {
    let server = start().await;
    create_table(server.addr, "t", &[]).await;
    let mut client = Client::connect(server.addr, "ClientService", None).await;
    let region = region_name_of(&locate(&mut client, "t", b"a").await);
    let binary = |value: &[u8]| pb::Comparator {
        name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
        serialized_comparator: Some(
            prost::Message::encode_to_vec(&pb::ComparableWrapper {
                comparable: pb::ByteArrayComparable {
                    value: Some(Bytes::copy_from_slice(value)),
                },
            })
            .into(),
        ),
    };
    let condition = |value: &[u8]| pb::Condition {
        row: Bytes::from_static(b"r"),
        family: Some(Bytes::from_static(b"f")),
        qualifier: Some(Bytes::from_static(b"q")),
        compare_type: Some(pb::CompareType::Equal as i32),
        comparator: Some(binary(value)),
        ..Default::default()
    };
    // An empty comparand means "no value yet" (ifNotExists).
    for (expected, value, processed) in [
        (&b""[..], &b"v1"[..], true),
        (b"", b"v2", false),
        (b"v1", b"v3", true),
    ] {
        let request = pb::MutateRequest {
            region: region_spec(&region),
            mutation: put(b"r", value),
            condition: Some(condition(expected)),
            nonce_group: None,
        };
        let answer: pb::MutateResponse = client.call("Mutate", &request).await.decode();
        assert_eq!(
            answer.processed(),
            processed,
            "put {value:?} if {expected:?}"
        );
    }
    assert_eq!(
        read_value(&mut client, &region, b"r").await.as_deref(),
        Some(&b"v3"[..])
    );
}

fn value_equals(value: &[u8]) -> pb::Filter {
    let comparator = pb::Comparator {
        name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
        serialized_comparator: Some(
            prost::Message::encode_to_vec(&pb::ComparableWrapper {
                comparable: pb::ByteArrayComparable {
                    value: Some(Bytes::copy_from_slice(value)),
                },
            })
            .into(),
        ),
    };
    let filter = pb::CompareFilterWrapper {
        compare_filter: pb::CompareFilter {
            compare_op: pb::CompareType::Equal as i32,
            comparator: Some(comparator),
        },
    };
    pb::Filter {
        name: "org.apache.hadoop.hbase.filter.ValueFilter".into(),
        serialized_filter: Some(prost::Message::encode_to_vec(&filter).into()),
    }
}

#[tokio::test]
async fn a_filter_that_skips_rows_past_the_heartbeat_time_answers_heartbeats_until_its_row() {
    let server =
        common::start_with(|ctx| ctx.with_heartbeat_after(std::time::Duration::ZERO)).await;
    create_table(server.addr, "hb", &[]).await;
    let table = strata_server::TableName::parse("hb").unwrap();
    let mut cells: Vec<Cell> = (0..2000u32)
        .map(|i| {
            Cell::put(
                format!("r{i:05}").into_bytes(),
                b"f".to_vec(),
                b"q".to_vec(),
                5,
                b"skip".to_vec(),
            )
        })
        .collect();
    cells.push(Cell::put(
        b"r99999".to_vec(),
        b"f".to_vec(),
        b"q".to_vec(),
        5,
        b"keep".to_vec(),
    ));
    server
        .service
        .rows()
        .mutate(&table, cells, strata_engine::Durability::SyncWal)
        .unwrap();
    let mut client = Client::connect(server.addr, "ClientService", Some(KV_CODEC)).await;
    let region = region_name_of(&locate(&mut client, "hb", b"a").await);
    let mut answer: pb::ScanResponse = client
        .call(
            "Scan",
            &pb::ScanRequest {
                region: Some(region_spec(&region)),
                scan: Some(pb::Scan {
                    filter: Some(value_equals(b"keep")),
                    ..Default::default()
                }),
                number_of_rows: Some(10),
                client_handles_heartbeats: Some(true),
                ..Default::default()
            },
        )
        .await
        .scan();
    let (mut heartbeats, mut rows, mut seq) = (0, Vec::new(), 0);
    loop {
        if answer.heartbeat_message() {
            heartbeats += 1;
            assert!(
                answer.more_results_in_region(),
                "a heartbeat is not the region's end"
            );
        }
        rows.extend(
            answer
                .results
                .iter()
                .flat_map(|r| r.cell.iter().filter_map(|c| c.row.clone())),
        );
        if !answer.more_results_in_region() {
            break;
        }
        assert!(heartbeats < 1000, "heartbeats must make progress");
        let next = pb::ScanRequest {
            scanner_id: answer.scanner_id,
            number_of_rows: Some(10),
            next_call_seq: Some(seq),
            client_handles_heartbeats: Some(true),
            ..Default::default()
        };
        seq += 1;
        answer = client.call("Scan", &next).await.scan();
    }
    assert!(
        heartbeats >= 10,
        "a zero heartbeat time answers every 64 skipped rows: {heartbeats}"
    );
    assert_eq!(rows, vec![Bytes::from_static(b"r99999")]);
}
