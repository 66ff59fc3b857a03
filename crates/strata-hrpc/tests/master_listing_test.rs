//! MasterService's table listings as clients other than hbase-client send them.

mod common;

use common::{create_table, start, Client};
use strata_hrpc::pb;

/// gohbase's ListTableNames always sets `namespace`, empty for "every namespace"; HMaster
/// filters by namespace only when it is non-empty.
#[tokio::test]
async fn get_table_names_with_an_empty_namespace_lists_every_namespace() {
    let server = start().await;
    create_table(server.addr, "listed", &[]).await;
    let mut master = Client::connect(server.addr, "MasterService", None).await;
    let names = |namespace: Option<&str>| pb::GetTableNamesRequest {
        regex: Some("list.*".into()),
        include_sys_tables: Some(false),
        namespace: namespace.map(str::to_string),
    };
    for namespace in [None, Some(""), Some("default")] {
        let answer: pb::GetTableNamesResponse = master
            .call("GetTableNames", &names(namespace))
            .await
            .decode();
        let listed: Vec<_> = answer
            .table_names
            .iter()
            .map(|t| t.qualifier.clone())
            .collect();
        assert_eq!(listed, vec![&b"listed"[..]], "namespace {namespace:?}");
    }
    let answer: pb::GetTableNamesResponse = master
        .call("GetTableNames", &names(Some("other")))
        .await
        .decode();
    assert!(answer.table_names.is_empty());
}
