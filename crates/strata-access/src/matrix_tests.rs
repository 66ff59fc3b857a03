//! Each permission at each scope allows exactly what HBase allows. The expected column is
//! written as the HBase book's ACL matrix writes it (`global(A)|NS(C)|...`), independently
//! of how the model derives it.

use crate::{AccessRules, Action, Actions, AdminOp, Columns, Grant, Identity, Scope, Subject};
use crate::{TableScope, Target};

/// Where a test grant is placed. Only the first five appear in the book's rules; the
/// others are near misses that must never allow anything.
fn places() -> Vec<(&'static str, Scope)> {
    let t = TableScope::table("ns", "t");
    vec![
        ("global", Scope::Global),
        ("NS", Scope::Namespace("ns".into())),
        ("table", Scope::Table(t.clone())),
        ("CF", Scope::Table(t.clone().with_family(b"cf"))),
        (
            "CQ",
            Scope::Table(t.clone().with_family(b"cf").with_qualifier(b"q")),
        ),
        ("otherNS", Scope::Namespace("other".into())),
        ("otherTable", Scope::Table(TableScope::table("ns", "u"))),
        ("otherCF", Scope::Table(t.clone().with_family(b"cf2"))),
        (
            "otherCQ",
            Scope::Table(t.with_family(b"cf").with_qualifier(b"q2")),
        ),
    ]
}

/// The book's rule for each operation (superuser and table owner left out: superusers are
/// tested below, and an owner is given a table grant when it creates the table).
const BOOK: &[(&str, &str)] = &[
    ("createTable", "global(A)|global(C)|NS(A)|NS(C)"),
    (
        "modifyTable",
        "global(A)|global(C)|NS(A)|NS(C)|table(A)|table(C)",
    ),
    (
        "deleteTable",
        "global(A)|global(C)|NS(A)|NS(C)|table(A)|table(C)",
    ),
    (
        "truncateTable",
        "global(A)|global(C)|NS(A)|NS(C)|table(A)|table(C)",
    ),
    (
        "enableTable",
        "global(A)|global(C)|NS(A)|NS(C)|table(A)|table(C)",
    ),
    (
        "disableTable",
        "global(A)|global(C)|NS(A)|NS(C)|table(A)|table(C)",
    ),
    ("flush", "global(A)|global(C)|NS(A)|NS(C)|table(A)|table(C)"),
    (
        "compact",
        "global(A)|global(C)|NS(A)|NS(C)|table(A)|table(C)",
    ),
    ("split", "global(A)|NS(A)|table(A)"),
    ("mergeRegions", "global(A)|NS(A)|table(A)"),
    ("move", "global(A)|NS(A)|table(A)"),
    ("balance", "global(A)"),
    ("createNamespace", "global(A)"),
    ("modifyNamespace", "global(A)"),
    ("deleteNamespace", "global(A)"),
    ("getNamespaceDescriptor", "global(A)|NS(A)"),
    ("snapshot", "global(A)|NS(A)|table(A)"),
    ("cloneSnapshot", "global(A)|NS(A)"),
    ("restoreSnapshot", "global(A)|NS(A)|table(A)"),
    ("deleteSnapshot", "global(A)"),
    ("grant", "global(A)|NS(A)|table(A)"),
    ("revoke", "global(A)|NS(A)|table(A)"),
    ("getUserPermissions", "global(A)|NS(A)|table(A)"),
    ("get cf:q", "global(R)|NS(R)|table(R)|CF(R)|CQ(R)"),
    // Any column grant in the family lets a read of the family through, filtered.
    ("get cf", "global(R)|NS(R)|table(R)|CF(R)|CQ(R)|otherCQ(R)"),
    ("get row", "global(R)|NS(R)|table(R)"),
    ("put cf:q", "global(W)|NS(W)|table(W)|CF(W)|CQ(W)"),
    ("put cf", "global(W)|NS(W)|table(W)|CF(W)"),
    ("deleteRow", "global(W)|NS(W)|table(W)"),
    (
        "checkAndPut cf:q",
        "global(RW)|NS(RW)|table(RW)|CF(RW)|CQ(RW)",
    ),
];

fn book_allows(rule: &str, place: &str, granted: Actions) -> bool {
    rule.split('|').any(|token| {
        let (at, letters) = token.trim_end_matches(')').split_once('(').unwrap();
        at == place
            && Actions::parse(letters)
                .unwrap()
                .iter()
                .all(|a| granted.contains(a))
    })
}

fn columns(spec: &str) -> Columns {
    let mut columns = Columns::new();
    match spec.split_once(':') {
        Some((f, q)) => columns.insert(f.into(), vec![q.into()]),
        None if spec == "row" => None,
        None => columns.insert(spec.into(), vec![]),
    };
    columns
}

fn model_allows(rules: &AccessRules, who: &Identity, operation: &str) -> bool {
    let table = TableScope::table("ns", "t");
    if let Some(op) = AdminOp::ALL.into_iter().find(|op| op.name() == operation) {
        let target = match op {
            AdminOp::CreateTable | AdminOp::CloneSnapshot | AdminOp::GetNamespaceDescriptor => {
                Target::Namespace("ns")
            }
            AdminOp::Grant | AdminOp::Revoke | AdminOp::GetUserPermissions => {
                return rules
                    .require_admin(who, op, Target::Scope(&Scope::Table(table.clone())))
                    .is_ok();
            }
            _ => Target::Table(&table),
        };
        return rules.require_admin(who, op, target).is_ok();
    }
    let (verb, spec) = operation.split_once(' ').unwrap_or((operation, "row"));
    let cols = columns(spec);
    let read = || rules.check_read(who, verb, &table, &cols).is_ok();
    let write = || {
        rules
            .require_columns(who, verb, &table, &cols, Action::Write)
            .is_ok()
    };
    match verb {
        "get" => read(),
        "put" | "deleteRow" => write(),
        "checkAndPut" => read() && write(),
        other => panic!("no such operation in the test: {other}"),
    }
}

/// The grants tried at each place: each action alone, and READ with WRITE.
fn grant_sets() -> Vec<Actions> {
    let mut sets: Vec<Actions> = Action::ALL.into_iter().map(Actions::from).collect();
    sets.push(Actions::parse("RW").unwrap());
    sets
}

#[test]
fn every_grant_at_every_scope_allows_what_the_hbase_book_says() {
    let bob = Identity::user("bob");
    let mut mismatches = Vec::new();
    for (operation, rule) in BOOK {
        for (place, scope) in places() {
            for granted in grant_sets() {
                let grant = Grant {
                    subject: Subject::User("bob".into()),
                    scope: scope.clone(),
                    actions: granted,
                };
                let rules = AccessRules::new(vec![], [grant]);
                let expected = book_allows(rule, place, granted);
                if model_allows(&rules, &bob, operation) != expected {
                    mismatches.push(format!(
                        "{operation} with {place}({granted}): expected {expected}"
                    ));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn the_book_lists_every_admin_operation() {
    for op in AdminOp::ALL {
        assert!(
            BOOK.iter().any(|(name, _)| *name == op.name()),
            "{} untested",
            op.name()
        );
    }
}

#[test]
fn a_group_grant_reaches_its_members_only() {
    let grant = Grant {
        subject: Subject::Group("ops".into()),
        scope: Scope::Global,
        actions: Actions::all(),
    };
    let rules = AccessRules::new(vec![], [grant]);
    let member = Identity::user("ann").with_groups(&["ops"]);
    let outsider = Identity::user("ops");
    for (operation, _) in BOOK {
        assert!(model_allows(&rules, &member, operation), "{operation}");
        assert!(!model_allows(&rules, &outsider, operation), "{operation}");
    }
}

#[test]
fn superusers_may_do_everything_and_nobody_else_anything_without_grants() {
    let rules = AccessRules::new(
        vec![
            Subject::User("root".into()),
            Subject::Group("admins".into()),
        ],
        [],
    );
    let root = Identity::user("root");
    let admin = Identity::user("ann").with_groups(&["admins"]);
    let bob = Identity::user("bob");
    for (operation, _) in BOOK {
        assert!(model_allows(&rules, &root, operation), "{operation}");
        assert!(model_allows(&rules, &admin, operation), "{operation}");
        assert!(!model_allows(&rules, &bob, operation), "{operation}");
    }
}
