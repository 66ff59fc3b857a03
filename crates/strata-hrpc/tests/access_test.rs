//! Access control over the native RPC with HBase's SIMPLE authentication: the connection
//! header's user is the caller, and a denial is HBase's `AccessDeniedException`, which its
//! client does not retry.

mod common;

use bytes::Bytes;
use common::{create_table, locate, region_name_of, region_spec, start_configured, Client};
use strata_access::{Actions, Grant, Scope, Subject, TableScope};
use strata_hrpc::pb;
use strata_server::access::{as_system, AccessConfig};

const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";

fn put(row: &[u8]) -> pb::MutateRequest {
    pb::MutateRequest {
        region: Default::default(),
        mutation: pb::MutationProto {
            row: Some(Bytes::copy_from_slice(row)),
            mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
            column_value: vec![pb::mutation_proto::ColumnValue {
                family: Bytes::from_static(b"f"),
                qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                    qualifier: Some(Bytes::from_static(b"q")),
                    value: Some(Bytes::from_static(b"v")),
                    ..Default::default()
                }],
            }],
            ..Default::default()
        },
        condition: None,
        nonce_group: None,
    }
}

fn get(region: &Bytes, row: &[u8]) -> pb::GetRequest {
    pb::GetRequest {
        region: region_spec(region),
        get: pb::Get {
            row: Bytes::copy_from_slice(row),
            ..Default::default()
        },
    }
}

#[tokio::test]
async fn the_header_user_is_the_caller_and_a_denial_is_not_retried() {
    let server = start_configured(
        |options| {
            options.access = AccessConfig {
                enabled: true,
                superusers: vec![Subject::User("tester".into())],
            };
        },
        |ctx| ctx.with_simple_authentication(),
    )
    .await;
    // The helpers connect as "tester", the superuser.
    create_table(server.addr, "t", &[]).await;
    let mut admin = Client::connect(server.addr, "ClientService", None).await;
    let region = region_name_of(&locate(&mut admin, "t", b"a").await);
    let mut write = put(b"a");
    write.region = region_spec(&region);
    assert!(admin
        .call("Mutate", &write)
        .await
        .header
        .exception
        .is_none());

    let mut bob = Client::connect_as(server.addr, "ClientService", None, "bob").await;
    let denied = bob.call("Get", &get(&region, b"a")).await;
    assert_eq!(denied.exception_class(), ACCESS_DENIED);
    let exception = denied.header.exception.as_ref().unwrap();
    assert!(
        exception.do_not_retry(),
        "HBase's client must not retry a denial"
    );
    assert!(
        exception.stack_trace().contains("user 'bob'"),
        "{:?}",
        exception.stack_trace
    );

    as_system(|| {
        let grant = Grant {
            subject: Subject::User("bob".into()),
            scope: Scope::Table(TableScope::table("default", "t")),
            actions: Actions::parse("R").unwrap(),
        };
        server.service.admin().grant(grant).unwrap();
    });
    let read = bob.call("Get", &get(&region, b"a")).await;
    assert!(
        read.header.exception.is_none(),
        "{:?}",
        read.header.exception
    );
    assert_eq!(read.get().result.unwrap().cell.len(), 1);
    let mut bobs_write = put(b"b");
    bobs_write.region = region_spec(&region);
    assert_eq!(
        bob.call("Mutate", &bobs_write).await.exception_class(),
        ACCESS_DENIED
    );
}

#[tokio::test]
async fn without_simple_authentication_every_caller_is_anonymous() {
    let server = start_configured(
        |options| {
            options.access = AccessConfig {
                enabled: true,
                superusers: vec![Subject::User("tester".into())],
            };
        },
        |ctx| ctx,
    )
    .await;
    let mut master = Client::connect(server.addr, "MasterService", None).await;
    let request = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(common::table("t")),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = master.call("CreateTable", &request).await;
    assert_eq!(answer.exception_class(), ACCESS_DENIED);
}
