//! Administration on a server that is not master is carried out by the master and is
//! visible on the sending server when the call returns.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::*;
use crate::registry::ClusterAdmin;

fn now() -> Instant {
    strata_runtime::clock::system().now()
}

/// A link that names a fixed master, or none until `unknown_until`.
#[derive(Debug)]
struct FixedLink {
    master: Option<Arc<LoopbackPeer>>,
    unknown_until: Instant,
    asked: AtomicUsize,
}

impl MasterLink for FixedLink {
    fn master(&self) -> Master {
        self.asked.fetch_add(1, Ordering::Relaxed);
        match &self.master {
            None => Master::Here,
            Some(_) if now() < self.unknown_until => Master::Unknown,
            Some(peer) => Master::Peer(Arc::clone(peer) as Arc<dyn RegionPeer>),
        }
    }
}

/// The master's cluster administration, recording what it was asked.
#[derive(Debug, Default)]
struct RecordingAdmin(Mutex<Vec<String>>);

impl ClusterAdmin for RecordingAdmin {
    fn move_region(&self, region: u64, target: Option<&str>) -> Result<String> {
        self.0.lock().push(format!("move {region} {target:?}"));
        Ok("s2".into())
    }
    fn balance(&self) -> Result<usize> {
        self.0.lock().push("balance".into());
        Ok(3)
    }
    fn set_balancer(&self, on: bool) -> Result<bool> {
        self.0.lock().push(format!("balancer {on}"));
        Ok(!on)
    }
    fn balancer_enabled(&self) -> Result<bool> {
        self.0.lock().push("balancer?".into());
        Ok(true)
    }
    fn decommission(&self, server: &str, on: bool) -> Result<usize> {
        self.0.lock().push(format!("decommission {server} {on}"));
        Ok(2)
    }
    fn decommissioned(&self) -> Result<Vec<String>> {
        Ok(vec!["s9".into()])
    }
    fn take_region(&self, region: u64) -> Result<()> {
        self.0.lock().push(format!("take {region}"));
        Ok(())
    }
    fn unassign(&self, region: u64) -> Result<()> {
        self.0.lock().push(format!("unassign {region}"));
        Ok(())
    }
    fn assign(&self, region: u64) -> Result<String> {
        self.0.lock().push(format!("assign {region}"));
        Ok("s3".into())
    }
}

/// A master and a server that is not, sharing one catalog.
struct Pair {
    master: Arc<Service>,
    other: Arc<Service>,
    link: Arc<FixedLink>,
    admin: Arc<RecordingAdmin>,
    _dirs: Vec<tempfile::TempDir>,
}

fn pair(unknown_for: Duration) -> Pair {
    let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let catalog = Arc::new(SharedCatalog::default());
    let to_master = Arc::new(LoopbackPeer::default());
    let open_with = |dir: &std::path::Path, link: Arc<FixedLink>| {
        let mut options = ServiceOptions::new(dir);
        options.catalog = Some(Arc::clone(&catalog) as Arc<dyn crate::catalog::CatalogStore>);
        options.master_link = Some(link as Arc<dyn MasterLink>);
        Service::open(options).unwrap()
    };
    let here = Arc::new(FixedLink {
        master: None,
        unknown_until: now(),
        asked: AtomicUsize::new(0),
    });
    let link = Arc::new(FixedLink {
        master: Some(Arc::clone(&to_master)),
        unknown_until: now() + unknown_for,
        asked: AtomicUsize::new(0),
    });
    let master = open_with(dirs[0].path(), here);
    let other = open_with(dirs[1].path(), Arc::clone(&link));
    to_master.target.set(Arc::downgrade(&master)).unwrap();
    let admin = Arc::new(RecordingAdmin::default());
    master
        .admin()
        .set_cluster_admin(Arc::clone(&admin) as Arc<dyn ClusterAdmin>);
    Pair {
        master,
        other,
        link,
        admin,
        _dirs: dirs,
    }
}

fn families() -> Vec<FamilyOptions> {
    let mut family = FamilyOptions::new("cf");
    family.max_versions = 5;
    vec![family]
}

#[test]
fn table_administration_on_another_server_is_done_by_the_master_and_seen_at_once() {
    let p = pair(Duration::ZERO);
    let name = TableName::parse("ns:t").unwrap();
    p.other.admin().create_namespace("ns").unwrap();
    p.other
        .admin()
        .create_table(&name, families(), vec![Bytes::from("m")])
        .unwrap();
    for svc in [&p.master, &p.other] {
        assert_eq!(svc.admin().list_tables(), vec![name.clone()]);
        assert_eq!(svc.admin().table_regions(&name).unwrap().len(), 2);
        assert_eq!(
            svc.admin().describe_table(&name).unwrap().families[0].max_versions,
            5
        );
    }
    let mut wider = families().remove(0);
    wider.max_versions = 9;
    p.other
        .admin()
        .alter_table(&name, crate::table_changes::AlterOp::ModifyFamily(wider))
        .unwrap();
    assert_eq!(
        p.other.admin().describe_table(&name).unwrap().families[0].max_versions,
        9
    );
    let (low, high) = p
        .other
        .admin()
        .split_region(&name, crate::table_changes::SplitAt::Key(Bytes::from("x")))
        .unwrap();
    assert!(low != high);
    assert_eq!(p.other.admin().table_regions(&name).unwrap().len(), 3);
    p.other.admin().disable_table(&name).unwrap();
    assert!(!p.master.admin().is_table_enabled(&name).unwrap());
    p.other.admin().delete_table(&name).unwrap();
    assert!(p.other.admin().list_tables().is_empty());
    assert!(p.master.admin().list_tables().is_empty());
    p.other.admin().drop_namespace("ns").unwrap();
    assert!(!p
        .master
        .admin()
        .list_namespaces()
        .contains(&"ns".to_string()));
}

#[test]
fn the_masters_errors_come_back_with_their_kind() {
    let p = pair(Duration::ZERO);
    let name = TableName::parse("t").unwrap();
    p.other
        .admin()
        .create_table(&name, families(), vec![])
        .unwrap();
    let again = p
        .other
        .admin()
        .create_table(&name, families(), vec![])
        .unwrap_err();
    assert_eq!(again.kind(), ErrorKind::AlreadyExists, "{again}");
    let enabled = p.other.admin().delete_table(&name).unwrap_err();
    assert_eq!(enabled.kind(), ErrorKind::FailedPrecondition, "{enabled}");
    let missing = p
        .other
        .admin()
        .enable_table(&TableName::parse("nope").unwrap())
        .unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound, "{missing}");
}

#[test]
fn cluster_administration_on_another_server_reaches_the_masters() {
    let p = pair(Duration::ZERO);
    let admin = p.other.admin().cluster_admin().unwrap();
    assert_eq!(admin.move_region(7, Some("s2")).unwrap(), "s2");
    assert_eq!(admin.balance().unwrap(), 3);
    assert!(admin.set_balancer(false).unwrap());
    assert!(admin.balancer_enabled().unwrap());
    assert_eq!(admin.decommission("s5", true).unwrap(), 2);
    assert_eq!(admin.decommissioned().unwrap(), vec!["s9".to_string()]);
    admin.unassign(11).unwrap();
    assert_eq!(admin.assign(11).unwrap(), "s3");
    assert_eq!(
        *p.admin.0.lock(),
        vec![
            "move 7 Some(\"s2\")",
            "balance",
            "balancer false",
            "balancer?",
            "decommission s5 true",
            "unassign 11",
            "assign 11"
        ]
    );
}

#[test]
fn administration_waits_while_no_master_is_known() {
    let p = pair(Duration::from_millis(200));
    let started = now();
    p.other.admin().create_namespace("later").unwrap();
    assert!(now().saturating_duration_since(started) >= Duration::from_millis(150));
    assert!(p.link.asked.load(Ordering::Relaxed) > 2, "it asked again");
    assert!(p
        .master
        .admin()
        .list_namespaces()
        .contains(&"later".to_string()));
}

#[test]
fn a_server_that_is_not_master_refuses_what_another_sent_it() {
    let p = pair(Duration::ZERO);
    let refused = p
        .other
        .peer_serving()
        .serve_admin(AdminRequest::CreateNamespace(
            "x".into(),
            Default::default(),
        ))
        .unwrap_err();
    assert!(matches!(refused, ServiceError::NotMaster), "{refused}");
    assert!(!p
        .master
        .admin()
        .list_namespaces()
        .contains(&"x".to_string()));
}

#[test]
fn a_schema_changed_through_another_server_is_seen_by_the_next_request() {
    let p = pair(Duration::ZERO);
    let name = TableName::parse("fresh").unwrap();
    let put = |family: &'static str| {
        let cell = Cell::put("r", family, "q", 1, "v");
        p.other
            .rows()
            .mutate(&name, vec![cell], crate::WriteDurability::SyncWal)
    };
    // Created on the master: the other server has not read the catalog since.
    p.master
        .admin()
        .create_table(&name, families(), vec![])
        .unwrap();
    put("cf").unwrap();
    // A family added on the master (the table disabled and enabled around it).
    p.master.admin().disable_table(&name).unwrap();
    let family = FamilyOptions::new("extra");
    p.master
        .admin()
        .alter_table(&name, crate::table_changes::AlterOp::AddFamily(family))
        .unwrap();
    p.master.admin().enable_table(&name).unwrap();
    put("extra").unwrap();
    assert!(p.other.rows().get(&name, &Get::new("r")).unwrap().is_some());
    // A family that exists nowhere is still an error, promptly.
    let missing = put("nope").unwrap_err();
    assert!(
        matches!(missing, ServiceError::FamilyNotFound { .. }),
        "{missing}"
    );
    let unknown = p
        .other
        .rows()
        .get(&TableName::parse("never").unwrap(), &Get::new("r"))
        .unwrap_err();
    assert!(
        matches!(unknown, ServiceError::TableNotFound(_)),
        "{unknown}"
    );
}
