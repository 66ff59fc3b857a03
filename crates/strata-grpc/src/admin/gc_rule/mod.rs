//! Bigtable garbage-collection rules as HBase family settings, exactly, both ways.
//!
//! Every rule Strata accepts collects a cell exactly when
//! `version > N  OR  (age > T AND version > M)` (version 1 is a column's newest cell), which
//! is what HBase's `VERSIONS = N`, `TTL = T`, `MIN_VERSIONS = M` keep at reads and at major
//! compactions (see the engine's `read/matcher.rs` and `compaction/rules.rs`: a cell is
//! dropped if it is beyond `VERSIONS`, or expired and beyond `MIN_VERSIONS`). So:
//!
//! | Bigtable rule                                          | VERSIONS   | TTL | MIN_VERSIONS |
//! |--------------------------------------------------------|------------|-----|--------------|
//! | none                                                   | unlimited  | -   | 0            |
//! | `max_num_versions N`                                   | N          | -   | 0            |
//! | `max_age T`                                            | unlimited  | T   | 0            |
//! | `union [max_num_versions N, max_age T]`                | N          | T   | 0            |
//! | `intersection [max_num_versions M, max_age T]`         | unlimited  | T   | M            |
//! | `union [max_num_versions N, intersection [M, T]]`      | N          | T   | M            |
//!
//! "Unlimited" is `i32::MAX` versions (HBase's own default is 1; Bigtable keeps every
//! version without a rule). The members of a union or intersection may come in any order,
//! and a union or intersection may hold a single rule. GetTable returns a rule set through
//! Bigtable exactly as it was given (kept, encoded, next to the family's settings), as long
//! as it still stands for the family's settings; a family created or changed through an
//! HBase API since gets the rule derived from its settings, versions first. Any other shape (nested unions, two ages in one
//! union, an intersection inside an intersection, ...) has no exact HBase equivalent and is
//! refused with INVALID_ARGUMENT naming the offending field, never approximated. HBase's
//! TTL is in whole seconds, so a `max_age` with a sub-second part is refused too.

use bytes::Bytes;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2::{
    gc_rule::{Intersection, Rule, Union},
    GcRule,
};
use prost::Message;
use strata_engine::FamilyOptions;
use tonic::Status;

/// HBase's largest VERSIONS (an int); a family with at least this many keeps every version.
pub const UNLIMITED_VERSIONS: u32 = i32::MAX as u32;

/// The HBase settings a GC rule stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcSettings {
    pub max_versions: u32,
    pub min_versions: u32,
    pub ttl_seconds: Option<u64>,
}

impl GcSettings {
    /// No garbage collection at all.
    pub const KEEP_ALL: GcSettings = GcSettings {
        max_versions: UNLIMITED_VERSIONS,
        min_versions: 0,
        ttl_seconds: None,
    };

    /// The settings of an existing family.
    pub fn of(family: &FamilyOptions) -> GcSettings {
        GcSettings {
            max_versions: family.max_versions,
            min_versions: family.min_versions,
            ttl_seconds: family.ttl_seconds,
        }
    }

    /// Writes these settings into `family`, keeping its other settings.
    pub fn apply_to(self, family: &mut FamilyOptions) {
        family.max_versions = self.max_versions;
        family.min_versions = self.min_versions;
        family.ttl_seconds = self.ttl_seconds;
    }
}

/// The age part of a rule: collect cells older than `ttl_seconds` that are beyond the newest
/// `keep_newest` versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AgePart {
    ttl_seconds: u64,
    keep_newest: u32,
}

/// A rule in its one exactly-mappable form: `version > N OR age part`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Canonical {
    versions: Option<u32>,
    age: Option<AgePart>,
}

fn invalid(field: &str, why: &str) -> Status {
    Status::invalid_argument(format!("{field}: {why}"))
}

/// The HBase settings for `rule` (`None` or an empty rule: keep everything). `field` is the
/// request field holding the rule, used to name the exact part that is refused.
pub fn settings_from_rule(rule: Option<&GcRule>, field: &str) -> Result<GcSettings, Status> {
    let canonical = match rule.and_then(|r| r.rule.as_ref()) {
        None => Canonical::default(),
        Some(rule) => parse(rule, field)?,
    };
    let mut settings = GcSettings::KEEP_ALL;
    if let Some(n) = canonical.versions {
        settings.max_versions = n;
    }
    if let Some(age) = canonical.age {
        settings.ttl_seconds = Some(age.ttl_seconds);
        settings.min_versions = age.keep_newest;
    }
    Ok(settings)
}

fn parse(rule: &Rule, field: &str) -> Result<Canonical, Status> {
    match rule {
        Rule::MaxNumVersions(n) => Ok(Canonical {
            versions: Some(versions(*n, &format!("{field}.max_num_versions"))?),
            age: None,
        }),
        Rule::MaxAge(d) => Ok(Canonical {
            versions: None,
            age: Some(AgePart {
                ttl_seconds: seconds(d, &format!("{field}.max_age"))?,
                keep_newest: 0,
            }),
        }),
        Rule::Intersection(i) => parse_intersection(i, &format!("{field}.intersection")),
        Rule::Union(u) => parse_union(u, &format!("{field}.union")),
    }
}

fn versions(n: i32, field: &str) -> Result<u32, Status> {
    u32::try_from(n)
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| invalid(field, &format!("must be at least 1, got {n}")))
}

fn seconds(d: &prost_types::Duration, field: &str) -> Result<u64, Status> {
    if d.nanos != 0 {
        return Err(invalid(
            field,
            "must be a whole number of seconds (HBase's TTL has second granularity)",
        ));
    }
    u64::try_from(d.seconds)
        .ok()
        .filter(|s| *s >= 1)
        .ok_or_else(|| invalid(field, &format!("must be positive, got {}s", d.seconds)))
}

/// The members of a union or intersection, each with its field name.
fn members<'a>(rules: &'a [GcRule], field: &str) -> Result<Vec<(String, &'a Rule)>, Status> {
    if rules.is_empty() {
        return Err(invalid(field, "must hold at least one rule"));
    }
    rules
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let name = format!("{field}.rules[{i}]");
            match &r.rule {
                Some(rule) => Ok((name, rule)),
                None => Err(invalid(&name, "is empty")),
            }
        })
        .collect()
}

/// `intersection [max_num_versions M, max_age T]` in either order (or a single rule).
fn parse_intersection(i: &Intersection, field: &str) -> Result<Canonical, Status> {
    let members = members(&i.rules, field)?;
    if let [(name, only)] = members.as_slice() {
        return parse(only, name);
    }
    let (mut keep, mut ttl) = (None, None);
    for (name, rule) in &members {
        match rule {
            Rule::MaxNumVersions(n) if keep.is_none() => {
                keep = Some(versions(*n, &format!("{name}.max_num_versions"))?)
            }
            Rule::MaxAge(d) if ttl.is_none() => ttl = Some(seconds(d, &format!("{name}.max_age"))?),
            _ => {
                return Err(invalid(
                    name,
                    "an intersection maps onto HBase only as exactly one max_num_versions \
                     and one max_age (MIN_VERSIONS and TTL)",
                ))
            }
        }
    }
    match (keep, ttl) {
        (Some(keep_newest), Some(ttl_seconds)) => Ok(Canonical {
            versions: None,
            age: Some(AgePart {
                ttl_seconds,
                keep_newest,
            }),
        }),
        _ => Err(invalid(field, "needs one max_num_versions and one max_age")),
    }
}

/// `union [max_num_versions N, max_age T | intersection [M, T]]` in either order (or a
/// single rule).
fn parse_union(u: &Union, field: &str) -> Result<Canonical, Status> {
    let members = members(&u.rules, field)?;
    if let [(name, only)] = members.as_slice() {
        return parse(only, name);
    }
    let mut out = Canonical::default();
    for (name, rule) in &members {
        let part = match rule {
            Rule::Union(_) => {
                return Err(invalid(
                    name,
                    "nested unions are not supported; list the rules in one union",
                ))
            }
            other => parse(other, name)?,
        };
        match (part.versions, part.age) {
            (Some(n), None) if out.versions.is_none() => out.versions = Some(n),
            (None, Some(age)) if out.age.is_none() => out.age = Some(age),
            _ => {
                return Err(invalid(
                    name,
                    "a union maps onto HBase only as at most one max_num_versions (VERSIONS) \
                     and at most one max_age or intersection (TTL, MIN_VERSIONS)",
                ))
            }
        }
    }
    Ok(out)
}

/// The GC rule a family's settings stand for; `None` when it keeps every version forever.
/// Used for tables created through any API (a Thrift table with VERSIONS 3 and TTL 60 reads
/// back as `union [max_num_versions 3, max_age 60s]`).
pub fn rule_from_settings(settings: GcSettings) -> Option<GcRule> {
    let versions = (settings.max_versions < UNLIMITED_VERSIONS)
        .then(|| rule(Rule::MaxNumVersions(clamp(settings.max_versions))));
    // Without a TTL, MIN_VERSIONS never matters.
    let age = settings.ttl_seconds.map(|ttl| {
        let max_age = rule(Rule::MaxAge(prost_types::Duration {
            seconds: i64::try_from(ttl).unwrap_or(i64::MAX),
            nanos: 0,
        }));
        if settings.min_versions == 0 {
            max_age
        } else {
            rule(Rule::Intersection(Intersection {
                rules: vec![
                    rule(Rule::MaxNumVersions(clamp(settings.min_versions))),
                    max_age,
                ],
            }))
        }
    });
    match (versions, age) {
        (Some(v), Some(a)) => Some(rule(Rule::Union(Union { rules: vec![v, a] }))),
        (v, a) => v.or(a),
    }
}

/// The rule to keep with a family so that GetTable can return it as given: `rule` encoded,
/// or `None` when it says nothing (no rule keeps every version, which the settings say).
pub fn rule_to_keep(rule: Option<&GcRule>) -> Option<Bytes> {
    rule.filter(|r| r.rule.is_some())
        .map(|r| Bytes::from(r.encode_to_vec()))
}

/// The GC rule GetTable reports for `family`: the one a Bigtable client gave, as given,
/// while it still stands for the family's settings; otherwise (never given, or the settings
/// were changed through an HBase API since) the rule derived from the settings.
pub fn family_rule(family: &FamilyOptions) -> Option<GcRule> {
    let settings = GcSettings::of(family);
    family
        .bigtable_gc_rule
        .as_ref()
        .and_then(|kept| GcRule::decode(kept.as_ref()).ok())
        .filter(|kept| settings_from_rule(Some(kept), "gc_rule").ok() == Some(settings))
        .or_else(|| rule_from_settings(settings))
}

fn rule(rule: Rule) -> GcRule {
    GcRule { rule: Some(rule) }
}

fn clamp(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests;
