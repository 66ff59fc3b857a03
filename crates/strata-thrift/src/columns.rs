//! Thrift1 column specs: `family`, `family:` and `family:qualifier`.
//!
//! HBase splits a spec at its first ':'. Without a colon the spec names a whole family; with one,
//! everything after it is the qualifier, which may be empty (`cf:` is the empty qualifier, not
//! the family) and may itself contain colons.

use bytes::Bytes;
use strata_engine::ColumnSelection;

/// A parsed column spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnSpec {
    /// Every qualifier of the family.
    Family(Bytes),
    /// One column; the qualifier may be empty.
    Column { family: Bytes, qualifier: Bytes },
}

impl ColumnSpec {
    /// Parses `cf`, `cf:` or `cf:q`.
    pub fn parse(spec: &Bytes) -> ColumnSpec {
        match spec.iter().position(|&b| b == b':') {
            None => ColumnSpec::Family(spec.clone()),
            Some(at) => ColumnSpec::Column {
                family: spec.slice(..at),
                qualifier: spec.slice(at + 1..),
            },
        }
    }

    /// The family part.
    pub fn family(&self) -> &Bytes {
        match self {
            ColumnSpec::Family(family) | ColumnSpec::Column { family, .. } => family,
        }
    }
}

/// Builds the engine's column selection from a list of specs. `None` (the argument was not
/// sent) and an empty list both select every column, as HBase does.
pub fn selection(specs: Option<&[Bytes]>) -> ColumnSelection {
    let mut columns = ColumnSelection::new();
    for spec in specs.unwrap_or_default() {
        add(&mut columns, ColumnSpec::parse(spec));
    }
    columns
}

/// Adds one spec to a selection, as HBase's `Get`/`Scan.addFamily` and `addColumn` do: a
/// family replaces the columns of it named before, and a column replaces an earlier
/// whole-family selection of its family (`[cf, cf:a]` reads only `cf:a`, `[cf:a, cf]` all of
/// `cf`).
pub fn add(columns: &mut ColumnSelection, spec: ColumnSpec) {
    match spec {
        ColumnSpec::Family(family) => {
            columns.insert(family, None);
        }
        ColumnSpec::Column { family, qualifier } => {
            columns
                .entry(family)
                .or_insert(None)
                .get_or_insert_with(Default::default)
                .insert(qualifier);
        }
    }
}

/// `family:qualifier`, the key of a column in Thrift results.
pub fn column_name(family: &[u8], qualifier: &[u8]) -> Bytes {
    let mut name = Vec::with_capacity(family.len() + 1 + qualifier.len());
    name.extend_from_slice(family);
    name.push(b':');
    name.extend_from_slice(qualifier);
    Bytes::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(ColumnSpec::parse(&b("cf")), ColumnSpec::Family(b("cf")));
        assert_eq!(
            ColumnSpec::parse(&b("cf:")),
            ColumnSpec::Column {
                family: b("cf"),
                qualifier: b("")
            }
        );
        assert_eq!(
            ColumnSpec::parse(&b("cf:a:b")),
            ColumnSpec::Column {
                family: b("cf"),
                qualifier: b("a:b")
            }
        );
    }

    #[test]
    fn selection_merges_families_and_columns() {
        let specs = [b("a:x"), b("a:y"), b("b:z"), b("b"), b("c:")];
        let sel = selection(Some(&specs));
        assert_eq!(sel.len(), 3);
        let a = sel[&b("a")].as_ref().expect("a has columns");
        assert!(a.contains(&b("x")) && a.contains(&b("y")));
        assert!(sel[&b("b")].is_none(), "the later family wins");
        let c = sel[&b("c")].as_ref().expect("c has a column");
        assert!(c.contains(&b("")));
        // A column after its whole family narrows it, as HBase's addColumn does (issue 13,
        // found by the differential test).
        let sel = selection(Some(&[b("b"), b("b:z"), b("b:y")]));
        let only: Vec<&Bytes> = sel[&b("b")]
            .as_ref()
            .expect("b has columns")
            .iter()
            .collect();
        assert_eq!(only, [&b("y"), &b("z")]);
        assert!(selection(None).is_empty());
        assert!(selection(Some(&[])).is_empty());
    }

    #[test]
    fn column_names_join_with_a_colon() {
        assert_eq!(column_name(b"cf", b"q"), b("cf:q"));
        assert_eq!(column_name(b"cf", b""), b("cf:"));
    }
}
