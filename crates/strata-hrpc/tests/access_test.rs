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

/// A server checking permissions with "tester" (the helpers' user) its superuser; with
/// `simple`, the connection header's user is the caller.
async fn secure_server(simple: bool) -> common::TestServer {
    start_configured(
        |options| {
            options.access = AccessConfig {
                enabled: true,
                superusers: vec![Subject::User("tester".into())],
                authenticator: None,
            };
        },
        |ctx| {
            if simple {
                ctx.with_simple_authentication()
            } else {
                ctx
            }
        },
    )
    .await
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
    let server = secure_server(true).await;
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
        server.service.admin().grant(grant, false).unwrap();
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
    let server = secure_server(false).await;
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

fn table_permission(actions: &[pb::permission::Action]) -> pb::Permission {
    let mut permission = pb::Permission::default();
    permission.set_type(pb::permission::Type::Table);
    permission.table_permission = Some(pb::TablePermission {
        table_name: Some(common::table("t")),
        family: None,
        qualifier: None,
        action: actions.iter().map(|a| *a as i32).collect(),
    });
    permission
}

fn user_permission(user: &str, actions: &[pb::permission::Action]) -> pb::UserPermission {
    pb::UserPermission {
        user: Bytes::copy_from_slice(user.as_bytes()),
        permission: table_permission(actions),
    }
}

#[tokio::test]
async fn grant_list_and_revoke_through_master_service_as_hbase_admin_does() {
    use pb::permission::Action::{Read, Write};
    let server = secure_server(true).await;
    create_table(server.addr, "t", &[]).await;
    let mut master = Client::connect(server.addr, "MasterService", None).await;
    let grant = pb::GrantRequest {
        user_permission: user_permission("bob", &[Read, Write]),
        merge_existing_permissions: Some(false),
    };
    let answer = master.call("Grant", &grant).await;
    assert!(
        answer.header.exception.is_none(),
        "{:?}",
        answer.header.exception
    );

    let listing = pb::GetUserPermissionsRequest {
        r#type: Some(pb::permission::Type::Table as i32),
        table_name: Some(common::table("t")),
        ..Default::default()
    };
    let listed: pb::GetUserPermissionsResponse =
        master.call("GetUserPermissions", &listing).await.decode();
    let mut users: Vec<(String, usize)> = listed
        .user_permission
        .iter()
        .map(|p| {
            let actions = p.permission.table_permission.as_ref().unwrap().action.len();
            (String::from_utf8(p.user.to_vec()).unwrap(), actions)
        })
        .collect();
    users.sort();
    // The creator owns the table: all five actions.
    assert_eq!(users, [("bob".to_string(), 2), ("tester".to_string(), 5)]);

    // bob may now write, and asks what it holds.
    let mut bob_master = Client::connect_as(server.addr, "MasterService", None, "bob").await;
    let asked = pb::HasUserPermissionsRequest {
        user_name: None,
        permission: vec![
            table_permission(&[Read]),
            table_permission(&[pb::permission::Action::Admin]),
        ],
    };
    let has: pb::HasUserPermissionsResponse =
        bob_master.call("HasUserPermissions", &asked).await.decode();
    assert_eq!(has.has_user_permission, [true, false]);
    // bob cannot grant, nor ask about another user.
    let bobs_grant = pb::GrantRequest {
        user_permission: user_permission("eve", &[Read]),
        merge_existing_permissions: None,
    };
    assert_eq!(
        bob_master
            .call("Grant", &bobs_grant)
            .await
            .exception_class(),
        ACCESS_DENIED
    );
    let about_tester = pb::HasUserPermissionsRequest {
        user_name: Some(Bytes::from_static(b"tester")),
        permission: vec![table_permission(&[Read])],
    };
    assert_eq!(
        bob_master
            .call("HasUserPermissions", &about_tester)
            .await
            .exception_class(),
        ACCESS_DENIED
    );

    let revoke = pb::RevokeRequest {
        user_permission: user_permission("bob", &[Write]),
    };
    assert!(master
        .call("Revoke", &revoke)
        .await
        .header
        .exception
        .is_none());
    let has: pb::HasUserPermissionsResponse = bob_master
        .call(
            "HasUserPermissions",
            &pb::HasUserPermissionsRequest {
                user_name: None,
                permission: vec![table_permission(&[Read]), table_permission(&[Write])],
            },
        )
        .await
        .decode();
    assert_eq!(has.has_user_permission, [true, false]);
}
