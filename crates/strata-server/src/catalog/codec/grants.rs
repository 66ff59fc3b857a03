//! The access-control record's value: every grant in force, in one record so that a grant
//! or revoke replaces the list atomically (grants are few; HBase keeps them in one table,
//! `hbase:acl`). Layout: docs/format.md, "Access-control record".
//!
//! The version byte, the grant count, then per grant: the subject (kind byte, 0 user or
//! 1 group, and the name), the scope (kind byte, 0 global, 1 namespace, 2 table, then the
//! namespace, and for a table its name, then an optional family and an optional
//! qualifier, each a presence byte and the bytes), and the actions as HBase's letters.

use strata_access::{Actions, Grant, Scope, Subject, TableScope};
use strata_engine::codec::{put_len_prefixed, put_varint, Decoder};

use crate::error::{Result, ServiceError};

const GRANTS_VERSION: u8 = 1;
/// Far above any real list; keeps a corrupt count from reserving memory.
const MAX_GRANTS: u64 = 1 << 20;

pub fn encode_grants(grants: &[Grant]) -> Vec<u8> {
    let mut buf = vec![GRANTS_VERSION];
    put_varint(&mut buf, grants.len() as u64);
    for grant in grants {
        let (kind, name) = match &grant.subject {
            Subject::User(u) => (0, u),
            Subject::Group(g) => (1, g),
        };
        buf.push(kind);
        put_len_prefixed(&mut buf, name.as_bytes());
        put_scope(&mut buf, &grant.scope);
        put_len_prefixed(&mut buf, grant.actions.to_string().as_bytes());
    }
    buf
}

fn put_scope(buf: &mut Vec<u8>, scope: &Scope) {
    match scope {
        Scope::Global => buf.push(0),
        Scope::Namespace(ns) => {
            buf.push(1);
            put_len_prefixed(buf, ns.as_bytes());
        }
        Scope::Table(t) => {
            buf.push(2);
            put_len_prefixed(buf, t.namespace.as_bytes());
            put_len_prefixed(buf, t.table.as_bytes());
            for part in [&t.family, &t.qualifier] {
                match part {
                    None => buf.push(0),
                    Some(bytes) => {
                        buf.push(1);
                        put_len_prefixed(buf, bytes);
                    }
                }
            }
        }
    }
}

/// Decodes the record; anything malformed is `CatalogCorrupt`.
pub fn decode_grants(bytes: &[u8]) -> Result<Vec<Grant>> {
    let bad = |what: &str| ServiceError::CatalogCorrupt(format!("access-control record: {what}"));
    let mut d = Decoder::new(bytes);
    if d.u8() != Some(GRANTS_VERSION) {
        return Err(bad("unknown version"));
    }
    let count = d
        .varint()
        .filter(|n| *n <= MAX_GRANTS)
        .ok_or_else(|| bad("bad count"))?;
    let mut grants = Vec::new();
    for _ in 0..count {
        grants.push(get_grant(&mut d).ok_or_else(|| bad("malformed grant"))?);
    }
    if !d.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok(grants)
}

fn get_grant(d: &mut Decoder) -> Option<Grant> {
    let kind = d.u8()?;
    let name = text(d.len_prefixed()?)?;
    let subject = match kind {
        0 if !name.is_empty() => Subject::User(name),
        1 if !name.is_empty() => Subject::Group(name),
        _ => return None,
    };
    let scope = get_scope(d)?;
    let actions = Actions::parse(&text(d.len_prefixed()?)?).ok()?;
    Some(Grant {
        subject,
        scope,
        actions,
    })
}

fn get_scope(d: &mut Decoder) -> Option<Scope> {
    Some(match d.u8()? {
        0 => Scope::Global,
        1 => Scope::Namespace(text(d.len_prefixed()?)?),
        2 => {
            let namespace = text(d.len_prefixed()?)?;
            let table = text(d.len_prefixed()?)?;
            let family = optional(d)?;
            let qualifier = optional(d)?;
            if family.is_none() && qualifier.is_some() {
                return None;
            }
            Scope::Table(TableScope {
                namespace,
                table,
                family,
                qualifier,
            })
        }
        _ => return None,
    })
}

fn optional(d: &mut Decoder) -> Option<Option<Vec<u8>>> {
    match d.u8()? {
        0 => Some(None),
        1 => Some(Some(d.len_prefixed()?.to_vec())),
        _ => None,
    }
}

fn text(bytes: &[u8]) -> Option<String> {
    String::from_utf8(bytes.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Grant> {
        let t = TableScope::table("ns", "t");
        vec![
            Grant {
                subject: Subject::User("bob".into()),
                scope: Scope::Global,
                actions: Actions::parse("RW").unwrap(),
            },
            Grant {
                subject: Subject::Group("ops".into()),
                scope: Scope::Namespace("ns".into()),
                actions: Actions::all(),
            },
            Grant {
                subject: Subject::User("ann".into()),
                scope: Scope::Table(t.clone()),
                actions: Actions::parse("C").unwrap(),
            },
            Grant {
                subject: Subject::User("ann".into()),
                scope: Scope::Table(t.with_family(b"cf").with_qualifier(b"\x00q")),
                actions: Actions::parse("R").unwrap(),
            },
        ]
    }

    #[test]
    fn grants_round_trip() {
        assert_eq!(decode_grants(&encode_grants(&sample())).unwrap(), sample());
        assert_eq!(decode_grants(&encode_grants(&[])).unwrap(), vec![]);
    }

    #[test]
    fn every_truncation_and_a_wrong_version_are_corruption_not_a_panic() {
        let bytes = encode_grants(&sample());
        for len in 0..bytes.len() {
            let err = decode_grants(&bytes[..len]).unwrap_err();
            assert!(
                matches!(err, ServiceError::CatalogCorrupt(_)),
                "{len}: {err}"
            );
        }
        let mut wrong = bytes.clone();
        wrong[0] = 9;
        assert!(decode_grants(&wrong).is_err());
        let mut longer = bytes;
        longer.push(0);
        assert!(decode_grants(&longer).is_err());
    }
}
