//! Access control through the service's facades: what each grant lets a user do, the
//! creator's rights, grants kept across a restart, and reads narrowed to the columns a
//! user may see.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_access::{Actions, Grant, Identity, Scope, Subject, TableScope};
use strata_engine::{Cell, FamilyOptions, Get, Scan, LATEST_TIMESTAMP};
use strata_server::access::{as_caller, AccessConfig, Caller};
use strata_server::{ErrorKind, Service, ServiceError, ServiceOptions, TableName};

fn open(dir: &std::path::Path) -> Arc<Service> {
    let mut options = ServiceOptions::new(dir);
    options.access = AccessConfig {
        enabled: true,
        superusers: vec![Subject::User("root".into())],
        authenticator: None,
    };
    Service::open(options).unwrap()
}

fn root() -> Caller {
    Caller::user(Identity::user("root"))
}

fn bob() -> Caller {
    Caller::user(Identity::user("bob").with_groups(&["devs"]))
}

fn t(name: &str) -> TableName {
    TableName::parse(name).unwrap()
}

fn put(family: &str, q: &str) -> Cell {
    Cell::put(
        "r",
        family.to_string(),
        q.to_string(),
        LATEST_TIMESTAMP,
        "v",
    )
}

fn grant(subject: &str, scope: Scope, actions: &str) -> Grant {
    Grant {
        subject: Subject::parse(subject).unwrap(),
        scope,
        actions: Actions::parse(actions).unwrap(),
    }
}

fn table_scope(name: &str) -> TableScope {
    TableScope::table("default", name)
}

/// A table `t` with families `a` and `b`, one row holding a cell in each, made by root.
fn with_table(svc: &Service) {
    as_caller(root(), || {
        let families = vec![FamilyOptions::new("a"), FamilyOptions::new("b")];
        svc.admin().create_table(&t("t"), families, vec![]).unwrap();
        svc.rows()
            .mutate(
                &t("t"),
                vec![put("a", "q"), put("b", "q")],
                strata_engine::Durability::default(),
            )
            .unwrap();
    });
}

fn is_denied(result: Result<impl std::fmt::Debug, ServiceError>) -> bool {
    match result {
        Err(e) => e.kind() == ErrorKind::PermissionDenied,
        Ok(v) => panic!("allowed: {v:?}"),
    }
}

fn families_read(svc: &Service, get: Get) -> Vec<String> {
    let row = svc.rows().get(&t("t"), &get).unwrap();
    row.map(|r| {
        r.cells
            .iter()
            .map(|c| String::from_utf8_lossy(&c.family).into_owned())
            .collect()
    })
    .unwrap_or_default()
}

#[test]
fn a_user_without_grants_and_an_anonymous_caller_are_refused_everything() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    with_table(&svc);
    as_caller(bob(), || {
        assert!(is_denied(svc.rows().get(&t("t"), &Get::new("r"))));
        assert!(is_denied(svc.rows().mutate(
            &t("t"),
            vec![put("a", "x")],
            strata_engine::Durability::default()
        )));
        assert!(is_denied(svc.scanners().open_scanner(&t("t"), Scan::new())));
        assert!(is_denied(svc.admin().disable_table(&t("t"))));
        assert!(is_denied(svc.admin().create_namespace("ns")));
        assert!(
            svc.admin().list_tables().is_empty(),
            "no grant: the table is not listed"
        );
    });
    // Nothing set: the adapter did not say who is asking.
    let err = svc.rows().get(&t("t"), &Get::new("r")).unwrap_err();
    assert!(err.to_string().contains("authenticated"), "{err}");
    // What was refused did not happen.
    as_caller(root(), || {
        assert!(svc.admin().is_table_enabled(&t("t")).unwrap());
        assert_eq!(
            families_read(&svc, Get::new("r").column("a", "x")),
            Vec::<String>::new()
        );
    });
}

#[test]
fn a_family_grant_allows_that_family_and_narrows_wider_reads() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    with_table(&svc);
    as_caller(root(), || {
        let scope = Scope::Table(table_scope("t").with_family(b"a"));
        svc.admin().grant(grant("bob", scope, "R"), false).unwrap();
    });
    as_caller(bob(), || {
        assert_eq!(families_read(&svc, Get::new("r").family("a")), ["a"]);
        // Both families asked for: only the readable one comes back, as HBase filters.
        assert_eq!(
            families_read(&svc, Get::new("r").family("a").family("b")),
            ["a"]
        );
        // Only the other family, or the whole row: refused (HBase's early out).
        assert!(is_denied(
            svc.rows().get(&t("t"), &Get::new("r").family("b"))
        ));
        assert!(is_denied(svc.rows().get(&t("t"), &Get::new("r"))));
        let err = svc
            .rows()
            .mutate(
                &t("t"),
                vec![put("a", "x")],
                strata_engine::Durability::default(),
            )
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Insufficient permissions for user 'bob' (operation=put, table=t, family=a, qualifier=x, action=WRITE)"
        );
        assert_eq!(svc.admin().list_tables(), vec![t("t")]);
    });
}

#[test]
fn a_group_grant_on_the_namespace_reaches_its_tables() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    with_table(&svc);
    as_caller(root(), || {
        svc.admin()
            .grant(
                grant("@devs", Scope::Namespace("default".into()), "RW"),
                false,
            )
            .unwrap();
    });
    as_caller(bob(), || {
        svc.rows()
            .mutate(
                &t("t"),
                vec![put("b", "x")],
                strata_engine::Durability::default(),
            )
            .unwrap();
        assert_eq!(families_read(&svc, Get::new("r")), ["a", "b", "b"]);
        assert!(is_denied(svc.admin().flush_table(&t("t"))));
    });
}

#[test]
fn the_creator_of_a_table_owns_it_and_its_grants_go_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    as_caller(root(), || {
        svc.admin()
            .grant(grant("bob", Scope::Namespace("default".into()), "C"), false)
            .unwrap();
    });
    as_caller(bob(), || {
        svc.admin()
            .create_table(&t("mine"), vec![FamilyOptions::new("a")], vec![])
            .unwrap();
        let cell = Cell::put("r", "a", "q", LATEST_TIMESTAMP, Bytes::from("v"));
        svc.rows()
            .mutate(&t("mine"), vec![cell], strata_engine::Durability::default())
            .unwrap();
        svc.admin().disable_table(&t("mine")).unwrap();
        svc.admin().delete_table(&t("mine")).unwrap();
    });
    as_caller(root(), || {
        let on_table = Scope::Table(table_scope("mine"));
        assert!(svc.admin().user_permissions(&on_table).unwrap().is_empty());
        svc.admin()
            .create_table(&t("mine"), vec![FamilyOptions::new("a")], vec![])
            .unwrap();
    });
    as_caller(bob(), || {
        assert!(
            is_denied(svc.rows().get(&t("mine"), &Get::new("r"))),
            "a new table of the name starts clean"
        );
    });
}

#[test]
fn grants_survive_a_restart_and_revoking_takes_them_away() {
    let dir = tempfile::tempdir().unwrap();
    {
        let svc = open(dir.path());
        with_table(&svc);
        as_caller(root(), || {
            svc.admin()
                .grant(grant("bob", Scope::Table(table_scope("t")), "RW"), false)
                .unwrap();
        });
        svc.close().unwrap();
    }
    let svc = open(dir.path());
    as_caller(bob(), || {
        assert_eq!(families_read(&svc, Get::new("r")), ["a", "b"])
    });
    as_caller(root(), || {
        let scope = Scope::Table(table_scope("t"));
        svc.admin()
            .revoke(
                &Subject::User("bob".into()),
                &scope,
                Actions::parse("R").unwrap(),
            )
            .unwrap();
        let left = svc.admin().user_permissions(&scope).unwrap();
        // root made the table, so root owns it too.
        assert_eq!(
            left,
            vec![
                grant("bob", scope.clone(), "W"),
                grant("root", scope, "RWXCA")
            ]
        );
    });
    as_caller(bob(), || {
        assert!(is_denied(svc.rows().get(&t("t"), &Get::new("r"))));
        svc.rows()
            .mutate(
                &t("t"),
                vec![put("a", "w")],
                strata_engine::Durability::default(),
            )
            .unwrap();
        // A user may list its own permissions, and only those, without ADMIN.
        let own = svc
            .admin()
            .user_permissions(&Scope::Table(table_scope("t")))
            .unwrap();
        assert_eq!(own, vec![grant("bob", Scope::Table(table_scope("t")), "W")]);
        assert!(svc
            .admin()
            .user_permissions(&Scope::Global)
            .unwrap()
            .is_empty());
        assert!(is_denied(
            svc.admin().grant(grant("bob", Scope::Global, "A"), false)
        ));
    });
}

#[test]
fn a_grant_on_a_missing_table_or_family_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    with_table(&svc);
    as_caller(root(), || {
        let missing = Scope::Table(table_scope("nope"));
        let err = svc
            .admin()
            .grant(grant("bob", missing, "R"), false)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
        let no_family = Scope::Table(table_scope("t").with_family(b"zz"));
        assert_eq!(
            svc.admin()
                .grant(grant("bob", no_family, "R"), false)
                .unwrap_err()
                .kind(),
            ErrorKind::NotFound
        );
    });
}

#[test]
fn with_checks_off_nobody_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let svc = Service::open(ServiceOptions::new(dir.path())).unwrap();
    let families = vec![FamilyOptions::new("a")];
    svc.admin().create_table(&t("t"), families, vec![]).unwrap();
    as_caller(bob(), || svc.rows().get(&t("t"), &Get::new("r")).unwrap());
}

#[test]
fn a_grant_replaces_what_the_user_held_there_unless_it_merges() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    with_table(&svc);
    as_caller(root(), || {
        let scope = Scope::Table(table_scope("t"));
        let admin = svc.admin();
        admin
            .grant(grant("bob", scope.clone(), "R"), false)
            .unwrap();
        admin
            .grant(grant("bob", scope.clone(), "W"), false)
            .unwrap();
        let held = |svc: &Service| {
            let rules = svc.access().rules();
            rules.held(&Subject::User("bob".into()), &scope).to_string()
        };
        assert_eq!(held(&svc), "W", "HBase's grant replaces");
        admin.grant(grant("bob", scope.clone(), "R"), true).unwrap();
        assert_eq!(held(&svc), "RW", "a merging grant adds");
    });
}
