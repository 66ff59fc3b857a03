use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2::{
    gc_rule::Rule, GcRule,
};

use super::*;
use crate::admin::gc_rule::UNLIMITED_VERSIONS;

fn table() -> TableName {
    TableName::parse("ns:t").unwrap()
}

fn family(versions: i32) -> ColumnFamily {
    ColumnFamily {
        gc_rule: Some(GcRule {
            rule: Some(Rule::MaxNumVersions(versions)),
        }),
        value_type: None,
    }
}

fn modification(id: &str, m: Mod) -> Modification {
    Modification {
        id: id.into(),
        update_mask: None,
        r#mod: Some(m),
    }
}

fn current() -> Vec<FamilyOptions> {
    vec![FamilyOptions::new("a"), FamilyOptions::new("b")]
}

#[test]
fn family_ids_follow_bigtables_pattern() {
    for ok in ["cf", "_x", "9a", "a-b.c_d"] {
        check_family_id("f", ok).unwrap();
    }
    for bad in ["", "-a", ".a", "a:b", "a b", &"x".repeat(65)] {
        let err = check_family_id("f", bad).unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument, "{bad:?}");
        assert!(err.message().starts_with("f:"));
    }
}

#[test]
fn a_family_without_a_rule_keeps_every_version() {
    let f = family_from_message("f", "cf", &ColumnFamily::default()).unwrap();
    assert_eq!(f.max_versions, UNLIMITED_VERSIONS);
    assert_eq!(f.ttl_seconds, None);
    assert_eq!(family_message(&f).gc_rule, None);
}

#[test]
fn modifications_are_planned_in_order() {
    let ops = plan(
        &table(),
        &current(),
        &[
            modification("c", Mod::Create(family(2))),
            modification("c", Mod::Update(family(5))),
            modification("a", Mod::Drop(true)),
        ],
    )
    .unwrap();
    assert!(matches!(&ops[0], AlterOp::AddFamily(f) if f.name == b"c" && f.max_versions == 2));
    assert!(matches!(&ops[1], AlterOp::ModifyFamily(f) if f.name == b"c" && f.max_versions == 5));
    assert!(matches!(&ops[2], AlterOp::DeleteFamily(n) if n.as_ref() == b"a"));
}

#[test]
fn update_keeps_the_familys_other_settings() {
    let mut a = FamilyOptions::new("a");
    a.block_size = 1234;
    let ops = plan(&table(), &[a], &[modification("a", Mod::Update(family(3)))]).unwrap();
    assert!(
        matches!(&ops[0], AlterOp::ModifyFamily(f) if f.block_size == 1234 && f.max_versions == 3)
    );
}

#[test]
fn bad_modifications_get_the_right_code_and_field() {
    let cases = [
        (
            vec![modification("a", Mod::Create(family(1)))],
            tonic::Code::AlreadyExists,
            "modifications[0].create:",
        ),
        (
            vec![
                modification("x", Mod::Drop(true)),
                modification("zz", Mod::Update(family(1))),
            ],
            tonic::Code::NotFound,
            "modifications[0].id:",
        ),
        (
            vec![
                modification("c", Mod::Create(family(1))),
                modification("zz", Mod::Update(family(1))),
            ],
            tonic::Code::NotFound,
            "modifications[1].id:",
        ),
        (
            vec![modification("c", Mod::Create(family(0)))],
            tonic::Code::InvalidArgument,
            "modifications[0].create.gc_rule.max_num_versions:",
        ),
        (
            vec![modification("a", Mod::Drop(false))],
            tonic::Code::InvalidArgument,
            "modifications[0].drop:",
        ),
        (
            vec![Modification {
                id: "a".into(),
                update_mask: None,
                r#mod: None,
            }],
            tonic::Code::InvalidArgument,
            "modifications[0]:",
        ),
        (vec![], tonic::Code::InvalidArgument, "modifications:"),
    ];
    for (mods, code, prefix) in cases {
        let err = plan(&table(), &current(), &mods).unwrap_err();
        assert_eq!(err.code(), code, "{mods:?}: {err:?}");
        assert!(
            err.message().starts_with(prefix),
            "{prefix} vs {}",
            err.message()
        );
    }
}

#[test]
fn dropping_then_recreating_a_family_is_allowed() {
    let ops = plan(
        &table(),
        &current(),
        &[
            modification("a", Mod::Drop(true)),
            modification("a", Mod::Create(family(1))),
        ],
    )
    .unwrap();
    assert_eq!(ops.len(), 2);
}

#[test]
fn only_the_gc_rule_can_be_updated() {
    let mut m = modification("a", Mod::Update(family(2)));
    m.update_mask = Some(prost_types::FieldMask {
        paths: vec!["gc_rule".into()],
    });
    plan(&table(), &current(), std::slice::from_ref(&m)).unwrap();
    m.update_mask = Some(prost_types::FieldMask {
        paths: vec!["value_type".into()],
    });
    let err = plan(&table(), &current(), &[m]).unwrap_err();
    assert!(err.message().starts_with("modifications[0].update_mask:"));
}

#[test]
fn created_and_updated_families_keep_the_rule_as_given() {
    use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2::gc_rule::{
        Intersection, Union,
    };
    let age = GcRule {
        rule: Some(Rule::MaxAge(prost_types::Duration {
            seconds: 3600,
            nanos: 0,
        })),
    };
    let intersection = GcRule {
        rule: Some(Rule::Intersection(Intersection {
            rules: vec![family(2).gc_rule.unwrap(), age],
        })),
    };
    let union = ColumnFamily {
        gc_rule: Some(GcRule {
            rule: Some(Rule::Union(Union {
                rules: vec![intersection, family(5).gc_rule.unwrap()],
            })),
        }),
        value_type: None,
    };
    let created = family_from_message("f", "cf", &union).unwrap();
    assert_eq!(family_message(&created), union);

    let ops = plan(
        &table(),
        &[created],
        &[modification("cf", Mod::Update(family(3)))],
    )
    .unwrap();
    let AlterOp::ModifyFamily(updated) = &ops[0] else {
        panic!("{ops:?}")
    };
    assert_eq!(family_message(updated), family(3));
    let ops = plan(
        &table(),
        std::slice::from_ref(updated),
        &[modification("cf", Mod::Update(ColumnFamily::default()))],
    )
    .unwrap();
    let AlterOp::ModifyFamily(cleared) = &ops[0] else {
        panic!("{ops:?}")
    };
    assert_eq!(cleared.bigtable_gc_rule, None);
    assert_eq!(family_message(cleared).gc_rule, None);
}
