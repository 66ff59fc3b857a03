//! The facade through an independent ZooKeeper client (the `zookeeper-client` crate), as
//! an application would use it.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)] // real sockets and real time; a failed setup panics

mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use zookeeper_client as zk;

async fn client(server: &TestServer, session_timeout: Duration) -> zk::Client {
    zk::Client::connector()
        .with_session_timeout(session_timeout)
        .with_connection_timeout(Duration::from_secs(2))
        .connect(&server.addr.to_string())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_and_read_the_hbase_znodes() {
    let server = start(quick_config()).await;
    let c = client(&server, Duration::from_millis(1500)).await;
    assert_eq!(c.session_timeout(), Duration::from_millis(1500));

    let (data, stat) = c.get_data("/hbase/master").await.unwrap();
    assert_eq!(data, MASTER);
    assert_eq!(stat.data_length, MASTER.len() as i32);

    let (data, _) = c.get_data("/hbase/hbaseid").await.unwrap();
    assert_eq!(data, CLUSTER_ID);

    let mut children = c.list_children("/hbase").await.unwrap();
    children.sort();
    assert_eq!(children, ["hbaseid", "master", "meta-region-server"]);
    let (root_children, root) = c.get_children("/").await.unwrap();
    assert_eq!(root_children, ["hbase"]);
    assert_eq!(root.num_children, 1);

    let stat = c
        .check_stat("/hbase")
        .await
        .unwrap()
        .expect("/hbase exists");
    assert_eq!((stat.num_children, stat.data_length), (3, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_node_is_reported_missing() {
    let server = start(quick_config()).await;
    let c = client(&server, Duration::from_millis(1500)).await;
    assert_eq!(c.check_stat("/hbase/nope").await.unwrap(), None);
    assert!(matches!(
        c.get_data("/hbase/nope").await,
        Err(zk::Error::NoNode)
    ));
    assert!(matches!(
        c.list_children("/nope").await,
        Err(zk::Error::NoNode)
    ));

    // A computed node follows the cluster: no master, no /hbase/master.
    server.master_up.store(false, Ordering::SeqCst);
    assert!(matches!(
        c.get_data("/hbase/master").await,
        Err(zk::Error::NoNode)
    ));
    assert_eq!(c.list_children("/hbase").await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_are_refused_and_the_session_carries_on() {
    let server = start(quick_config()).await;
    let c = client(&server, Duration::from_millis(1500)).await;
    let options = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    let created = c.create("/hbase/x", b"v", &options).await;
    assert!(
        matches!(created, Err(zk::Error::NotReadOnly)),
        "{created:?}"
    );
    let set = c.set_data("/hbase/master", b"v", None).await;
    assert!(matches!(set, Err(zk::Error::NotReadOnly)), "{set:?}");
    let deleted = c.delete("/hbase/master", None).await;
    assert!(
        matches!(deleted, Err(zk::Error::NotReadOnly)),
        "{deleted:?}"
    );
    assert_eq!(c.get_data("/hbase/master").await.unwrap().0, MASTER);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_keep_an_idle_session_alive_past_its_timeout() {
    let server = start(quick_config()).await;
    let c = client(&server, Duration::from_millis(600)).await;
    let id = c.session_id();
    // Idle for four timeouts: only the client's pings keep the session.
    tokio::time::sleep(Duration::from_millis(2400)).await;
    assert_eq!(c.state(), zk::SessionState::SyncConnected);
    assert_eq!(c.get_data("/hbase/hbaseid").await.unwrap().0, CLUSTER_ID);
    assert_eq!(c.session_id(), id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watches_are_accepted_and_never_fire() {
    let server = start(quick_config()).await;
    let c = client(&server, Duration::from_millis(1500)).await;
    let (data, _, watcher) = c.get_and_watch_data("/hbase/master").await.unwrap();
    assert_eq!(data, MASTER);
    // Even when the node goes away, the facade sends no notification.
    server.master_up.store(false, Ordering::SeqCst);
    let fired = tokio::time::timeout(Duration::from_millis(300), watcher.changed()).await;
    assert!(fired.is_err(), "a watch fired");
    // The connection is still in order after the watch was registered.
    assert!(c.check_stat("/hbase/master").await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_and_get_acl_answer() {
    let server = start(quick_config()).await;
    let c = client(&server, Duration::from_millis(1500)).await;
    c.sync("/hbase").await.unwrap();
    let (acls, stat) = c.get_acl("/hbase/hbaseid").await.unwrap();
    assert_eq!(acls.len(), 1);
    assert_eq!(acls[0].permission(), zk::Permission::READ);
    assert_eq!(acls[0].scheme(), "world");
    assert_eq!(acls[0].id(), "anyone");
    assert_eq!(stat.data_length, CLUSTER_ID.len() as i32);
}
