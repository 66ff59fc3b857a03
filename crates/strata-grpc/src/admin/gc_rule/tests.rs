use super::*;

fn versions(n: i32) -> GcRule {
    rule(Rule::MaxNumVersions(n))
}

fn age(seconds: i64) -> GcRule {
    rule(Rule::MaxAge(prost_types::Duration { seconds, nanos: 0 }))
}

fn union(rules: Vec<GcRule>) -> GcRule {
    rule(Rule::Union(Union { rules }))
}

fn intersection(rules: Vec<GcRule>) -> GcRule {
    rule(Rule::Intersection(Intersection { rules }))
}

fn settings(max_versions: u32, min_versions: u32, ttl_seconds: Option<u64>) -> GcSettings {
    GcSettings {
        max_versions,
        min_versions,
        ttl_seconds,
    }
}

fn parse_ok(r: &GcRule) -> GcSettings {
    settings_from_rule(Some(r), "f").unwrap()
}

fn refused(r: &GcRule) -> String {
    let err = settings_from_rule(Some(r), "gc_rule").unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");
    err.message().to_string()
}

#[test]
fn no_rule_keeps_every_version_forever() {
    assert_eq!(settings_from_rule(None, "f").unwrap(), GcSettings::KEEP_ALL);
    assert_eq!(parse_ok(&GcRule { rule: None }), GcSettings::KEEP_ALL);
    assert_eq!(rule_from_settings(GcSettings::KEEP_ALL), None);
}

#[test]
fn each_exact_shape_maps_onto_hbase_settings() {
    let cases = [
        (versions(3), settings(3, 0, None)),
        (age(60), settings(UNLIMITED_VERSIONS, 0, Some(60))),
        (union(vec![versions(2), age(60)]), settings(2, 0, Some(60))),
        (
            intersection(vec![versions(2), age(60)]),
            settings(UNLIMITED_VERSIONS, 2, Some(60)),
        ),
        (
            union(vec![versions(5), intersection(vec![versions(2), age(60)])]),
            settings(5, 2, Some(60)),
        ),
    ];
    for (rule, expected) in cases {
        assert_eq!(parse_ok(&rule), expected, "{rule:?}");
        // And back: GetTable reports the rule exactly as it was set.
        assert_eq!(rule_from_settings(expected), Some(rule));
    }
}

#[test]
fn member_order_does_not_matter_and_derived_rules_list_versions_first() {
    let swapped = union(vec![age(60), versions(2)]);
    assert_eq!(parse_ok(&swapped), settings(2, 0, Some(60)));
    assert_eq!(
        rule_from_settings(parse_ok(&swapped)),
        Some(union(vec![versions(2), age(60)]))
    );
    let swapped = intersection(vec![age(9), versions(4)]);
    assert_eq!(parse_ok(&swapped), settings(UNLIMITED_VERSIONS, 4, Some(9)));
}

#[test]
fn single_member_groups_are_their_member() {
    assert_eq!(parse_ok(&union(vec![versions(7)])), settings(7, 0, None));
    assert_eq!(
        parse_ok(&intersection(vec![age(5)])),
        settings(UNLIMITED_VERSIONS, 0, Some(5))
    );
}

#[test]
fn settings_from_hbase_tables_read_back_faithfully() {
    // HBase's default family: one version.
    assert_eq!(rule_from_settings(settings(1, 0, None)), Some(versions(1)));
    // MIN_VERSIONS without a TTL never collects anything, so it is not part of the rule.
    assert_eq!(rule_from_settings(settings(3, 2, None)), Some(versions(3)));
    assert_eq!(
        rule_from_settings(settings(UNLIMITED_VERSIONS, 1, Some(30))),
        Some(intersection(vec![versions(1), age(30)]))
    );
    // Larger than an i32 (possible in the engine) still reads back as "unlimited".
    assert_eq!(rule_from_settings(settings(u32::MAX, 0, None)), None);
}

#[test]
fn shapes_without_an_exact_equivalent_are_refused_naming_the_field() {
    let msg = refused(&union(vec![versions(1), versions(2)]));
    assert!(msg.starts_with("gc_rule.union.rules[1]:"), "{msg}");
    let msg = refused(&union(vec![age(1), age(2)]));
    assert!(msg.starts_with("gc_rule.union.rules[1]:"), "{msg}");
    let msg = refused(&union(vec![versions(1), union(vec![age(1), versions(3)])]));
    assert!(msg.starts_with("gc_rule.union.rules[1]:"), "{msg}");
    let msg = refused(&intersection(vec![versions(1), versions(2)]));
    assert!(msg.starts_with("gc_rule.intersection.rules[1]:"), "{msg}");
    let msg = refused(&intersection(vec![
        versions(1),
        union(vec![versions(2), age(3)]),
    ]));
    assert!(msg.starts_with("gc_rule.intersection.rules[1]:"), "{msg}");
    // An intersection and a max_age in one union: two age parts.
    let msg = refused(&union(vec![
        age(10),
        intersection(vec![versions(2), age(60)]),
    ]));
    assert!(msg.starts_with("gc_rule.union.rules[1]:"), "{msg}");
    let msg = refused(&union(vec![]));
    assert!(msg.starts_with("gc_rule.union:"), "{msg}");
    let msg = refused(&union(vec![versions(1), GcRule { rule: None }]));
    assert!(msg.starts_with("gc_rule.union.rules[1]:"), "{msg}");
}

#[test]
fn bad_values_are_refused_naming_the_field() {
    let msg = refused(&versions(0));
    assert!(msg.starts_with("gc_rule.max_num_versions:"), "{msg}");
    let msg = refused(&union(vec![versions(2), versions(-1)]));
    assert!(msg.starts_with("gc_rule.union.rules[1]"), "{msg}");
    let msg = refused(&age(0));
    assert!(msg.starts_with("gc_rule.max_age:"), "{msg}");
    let half_second = rule(Rule::MaxAge(prost_types::Duration {
        seconds: 1,
        nanos: 500_000_000,
    }));
    let msg = refused(&half_second);
    assert!(msg.contains("whole number of seconds"), "{msg}");
    let msg = refused(&union(vec![versions(2), half_second]));
    assert!(msg.starts_with("gc_rule.union.rules[1].max_age:"), "{msg}");
}

#[test]
fn settings_round_trip_through_family_options() {
    let mut family = FamilyOptions::new("cf");
    family.block_size = 4096;
    settings(4, 1, Some(10)).apply_to(&mut family);
    assert_eq!(GcSettings::of(&family), settings(4, 1, Some(10)));
    assert_eq!(family.block_size, 4096, "other settings are kept");
}

/// A family whose settings and kept rule come from `rule`, as CreateTable makes it.
fn family_set_to(rule: &GcRule) -> FamilyOptions {
    let mut family = FamilyOptions::new("cf");
    parse_ok(rule).apply_to(&mut family);
    family.bigtable_gc_rule = rule_to_keep(Some(rule));
    family
}

#[test]
fn a_rule_given_through_bigtable_reads_back_as_given() {
    let given = [
        // The shape Google's Python client compares and the emulator returns unchanged.
        union(vec![
            intersection(vec![versions(2), age(3600)]),
            versions(5),
        ]),
        union(vec![age(60), versions(2)]),
        intersection(vec![age(9), versions(4)]),
        union(vec![versions(7)]),
        intersection(vec![union(vec![age(5)])]),
    ];
    for rule in given {
        let family = family_set_to(&rule);
        assert_eq!(family_rule(&family), Some(rule.clone()), "{rule:?}");
        // What is kept is the rule's own encoding, nothing derived.
        assert_eq!(family.bigtable_gc_rule, Some(rule.encode_to_vec().into()));
    }
}

#[test]
fn no_rule_keeps_nothing_and_reads_back_as_none() {
    assert_eq!(rule_to_keep(None), None);
    assert_eq!(rule_to_keep(Some(&GcRule { rule: None })), None);
    let family = family_set_to(&GcRule { rule: None });
    assert_eq!(family_rule(&family), None);
}

#[test]
fn a_kept_rule_is_dropped_once_hbase_changes_the_settings() {
    let given = union(vec![
        intersection(vec![versions(2), age(3600)]),
        versions(5),
    ]);
    let mut family = family_set_to(&given);
    // An HBase API (Thrift, REST, shell) changes VERSIONS and keeps the other fields.
    family.max_versions = 4;
    assert_eq!(
        family_rule(&family),
        Some(union(vec![
            versions(4),
            intersection(vec![versions(2), age(3600)])
        ]))
    );
    family.max_versions = 5;
    family.ttl_seconds = None;
    assert_eq!(family_rule(&family), Some(versions(5)));
}

#[test]
fn a_kept_rule_that_does_not_decode_or_map_is_replaced_by_the_derived_one() {
    let mut family = FamilyOptions::new("cf");
    settings(3, 0, None).apply_to(&mut family);
    for kept in [
        &b"\xff\xff\xff"[..],                                       // not a GcRule
        &union(vec![versions(1), versions(2)]).encode_to_vec()[..], // refused shape
    ] {
        family.bigtable_gc_rule = Some(Bytes::copy_from_slice(kept));
        assert_eq!(family_rule(&family), Some(versions(3)), "{kept:?}");
    }
}
