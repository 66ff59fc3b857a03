//! Who a gRPC caller is, and what it may do: a bearer token in the `authorization`
//! metadata (as Bigtable's clients send it) or a client certificate under mutual TLS names
//! the caller; a token that is not valid is UNAUTHENTICATED, a missing permission
//! PERMISSION_DENIED, and nothing is written.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // real time, sockets and files in these tests

mod common;

use std::sync::Arc;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::bigtable_client::BigtableClient;
use strata_access::{Actions, Grant, Scope, Subject, TableScope};
use strata_auth::{hash_token, Authenticator, TokenStore};
use strata_engine::FamilyOptions;
use strata_server::access::{as_system, AccessConfig};
use strata_server::{Service, ServiceOptions, TableName};
use strata_tls::test_support::TestCa;
use strata_tls::TlsListener;
use tonic::Code;

const TABLE: &str = "projects/p/instances/default/tables/t";

/// A service checking permissions, `admin` its superuser, `reader` granted READ on `t`;
/// tokens `admin-token` and `reader-token` stand for them.
fn service(dir: &std::path::Path) -> Arc<Service> {
    let tokens = dir.join("tokens");
    let lines = format!(
        "sha256:{} admin\nsha256:{} reader\n",
        hash_token("admin-token"),
        hash_token("reader-token")
    );
    std::fs::write(&tokens, lines).unwrap();
    let clock = strata_runtime::clock::system();
    let store = TokenStore::load(&tokens, Arc::clone(&clock)).unwrap();
    let mut options = ServiceOptions::new(dir.join("data"));
    options.access = AccessConfig {
        enabled: true,
        superusers: vec![Subject::User("admin".into())],
        authenticator: Some(Arc::new(Authenticator::new(Some(store), clock))),
    };
    let service = Service::open(options).unwrap();
    as_system(|| {
        let t = TableName::parse("t").unwrap();
        service
            .admin()
            .create_table(&t, vec![FamilyOptions::new("cf")], vec![])
            .unwrap();
        let grant = Grant {
            subject: Subject::User("reader".into()),
            scope: Scope::Table(TableScope::table("default", "t")),
            actions: Actions::parse("R").unwrap(),
        };
        service.admin().grant(grant, false).unwrap();
    });
    service
}

fn write(row: &'static [u8]) -> pb::MutateRowRequest {
    let set = pb::mutation::SetCell {
        family_name: "cf".into(),
        column_qualifier: Bytes::from_static(b"q"),
        timestamp_micros: -1,
        value: Bytes::from_static(b"v"),
    };
    pb::MutateRowRequest {
        table_name: TABLE.into(),
        row_key: Bytes::from_static(row),
        mutations: vec![pb::Mutation {
            mutation: Some(pb::mutation::Mutation::SetCell(set)),
        }],
        ..Default::default()
    }
}

/// The row keys a read of `rows` (empty: the whole table) returns, or its status code.
async fn read<T>(client: &mut BigtableClient<T>, rows: &[&'static [u8]]) -> Result<Vec<Bytes>, Code>
where
    T: tonic::client::GrpcService<tonic::body::Body>,
    T::Error: Into<tonic::codegen::StdError>,
    T::ResponseBody: tonic::codegen::Body<Data = Bytes> + Send + 'static,
    <T::ResponseBody as tonic::codegen::Body>::Error: Into<tonic::codegen::StdError> + Send,
{
    let request = pb::ReadRowsRequest {
        table_name: TABLE.into(),
        rows: (!rows.is_empty()).then(|| pb::RowSet {
            row_keys: rows.iter().map(|r| Bytes::from_static(r)).collect(),
            row_ranges: vec![],
        }),
        ..Default::default()
    };
    let mut stream = client
        .read_rows(request)
        .await
        .map_err(|s| s.code())?
        .into_inner();
    let mut keys = Vec::new();
    while let Some(reply) = stream.message().await.map_err(|s| s.code())? {
        keys.extend(
            reply
                .chunks
                .into_iter()
                .map(|c| c.row_key)
                .filter(|k| !k.is_empty()),
        );
    }
    Ok(keys)
}

type AddToken =
    Box<dyn FnMut(tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> + Send>;
type Authorized =
    tonic::service::interceptor::InterceptedService<tonic::transport::Channel, AddToken>;

fn with_token(
    channel: tonic::transport::Channel,
    token: Option<&'static str>,
) -> BigtableClient<Authorized> {
    let add: AddToken = Box::new(move |mut request: tonic::Request<()>| {
        if let Some(token) = token {
            let value = format!("Bearer {token}").parse().unwrap();
            request.metadata_mut().insert("authorization", value);
        }
        Ok(request)
    });
    BigtableClient::with_interceptor(channel, add)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_token_names_the_caller_and_a_bad_one_is_unauthenticated() {
    let dir = tempfile::tempdir().unwrap();
    let service = service(dir.path());
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    tokio::spawn(strata_grpc::serve_listener(
        tcp,
        Arc::clone(&service),
        std::future::pending(),
    ));
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();

    let mut admin = with_token(channel.clone(), Some("admin-token"));
    admin.mutate_row(write(b"a")).await.unwrap();

    let mut reader = with_token(channel.clone(), Some("reader-token"));
    assert_eq!(
        read(&mut reader, &[b"a"]).await,
        Ok(vec![Bytes::from_static(b"a")]),
        "point read"
    );
    assert_eq!(
        read(&mut reader, &[]).await,
        Ok(vec![Bytes::from_static(b"a")]),
        "scan"
    );
    let denied = reader.mutate_row(write(b"b")).await.unwrap_err();
    assert_eq!(denied.code(), Code::PermissionDenied, "{denied:?}");
    assert!(
        denied.message().contains("user 'reader'"),
        "{}",
        denied.message()
    );

    let mut nobody = with_token(channel.clone(), None);
    assert_eq!(
        nobody.mutate_row(write(b"c")).await.unwrap_err().code(),
        Code::PermissionDenied
    );
    assert_eq!(
        read(&mut nobody, &[b"a"]).await,
        Err(Code::PermissionDenied)
    );

    let mut forger = with_token(channel, Some("guessed"));
    let refused = forger.mutate_row(write(b"d")).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    assert!(
        !refused.message().contains("guessed"),
        "the token is not echoed"
    );

    assert_eq!(
        read(&mut admin, &[]).await,
        Ok(vec![Bytes::from_static(b"a")]),
        "nothing else was written"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_names_the_caller_under_mutual_tls() {
    let dir = tempfile::tempdir().unwrap();
    let service = service(dir.path());
    let ca = TestCa::new("test CA");
    let mut files = ca.write_server_files(dir.path());
    let ca_file = dir.path().join("clients.pem");
    std::fs::write(&ca_file, ca.pem()).unwrap();
    files.client_ca = Some(ca_file);
    let config =
        strata_tls::server_config(&files, &[b"h2"], strata_runtime::clock::system()).unwrap();
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    tokio::spawn(strata_grpc::serve_tls_listener_with(
        TlsListener::new(tcp, config),
        Arc::clone(&service),
        strata_grpc::GrpcLimits::default(),
        std::future::pending(),
    ));
    let connect = |user: &str| common::tls_client(addr, &ca, Some(ca.client_leaf(user)));
    let mut admin = connect("admin").await;
    admin.mutate_row(write(b"a")).await.unwrap();
    let mut reader = connect("reader").await;
    assert_eq!(
        read(&mut reader, &[b"a"]).await,
        Ok(vec![Bytes::from_static(b"a")])
    );
    assert_eq!(
        reader.mutate_row(write(b"b")).await.unwrap_err().code(),
        Code::PermissionDenied
    );
}
