//! Where a permission applies: the whole cluster, a namespace, a table, a column family of
//! a table, or one column.

use std::fmt;

/// The reach of a grant. A table is named by its namespace and its name within it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    Global,
    Namespace(String),
    Table(TableScope),
}

/// A table, optionally narrowed to a family and then to one qualifier.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableScope {
    pub namespace: String,
    pub table: String,
    pub family: Option<Vec<u8>>,
    /// Only with a family.
    pub qualifier: Option<Vec<u8>>,
}

impl TableScope {
    pub fn table(namespace: &str, table: &str) -> TableScope {
        TableScope {
            namespace: namespace.to_string(),
            table: table.to_string(),
            family: None,
            qualifier: None,
        }
    }

    pub fn with_family(mut self, family: &[u8]) -> TableScope {
        self.family = Some(family.to_vec());
        self
    }

    pub fn with_qualifier(mut self, qualifier: &[u8]) -> TableScope {
        self.qualifier = Some(qualifier.to_vec());
        self
    }

    /// The table's name as HBase prints it: `t` in the default namespace, else `ns:t`.
    pub fn table_name(&self) -> String {
        if self.namespace == "default" {
            self.table.clone()
        } else {
            format!("{}:{}", self.namespace, self.table)
        }
    }

    pub fn same_table(&self, other: &TableScope) -> bool {
        self.namespace == other.namespace && self.table == other.table
    }

    /// Whether a grant at this scope reaches `wanted` (HBase's `TablePermission.implies`):
    /// a grant without a family covers every family, one without a qualifier every column
    /// of its family; a request for the whole table or family is covered only by a grant
    /// at least that wide.
    pub fn covers(&self, wanted: &TableScope) -> bool {
        self.same_table(wanted)
            && narrower_part_covered(&self.family, &wanted.family)
            && narrower_part_covered(&self.qualifier, &wanted.qualifier)
    }
}

fn narrower_part_covered(granted: &Option<Vec<u8>>, wanted: &Option<Vec<u8>>) -> bool {
    match (granted, wanted) {
        (None, _) => true,
        (Some(g), Some(w)) => g == w,
        (Some(_), None) => false,
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Global => f.write_str("global"),
            Scope::Namespace(ns) => write!(f, "namespace={ns}"),
            Scope::Table(t) => t.fmt(f),
        }
    }
}

impl fmt::Display for TableScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "table={}", self.table_name())?;
        if let Some(family) = &self.family {
            write!(f, ", family={}", String::from_utf8_lossy(family))?;
        }
        if let Some(qualifier) = &self.qualifier {
            write!(f, ", qualifier={}", String::from_utf8_lossy(qualifier))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wider_grant_covers_a_narrower_request_and_not_the_other_way() {
        let table = TableScope::table("default", "t");
        let family = table.clone().with_family(b"cf");
        let column = family.clone().with_qualifier(b"q");
        assert!(table.covers(&family) && table.covers(&column));
        assert!(family.covers(&column) && family.covers(&family));
        assert!(!family.covers(&table) && !column.covers(&family));
        assert!(!family.covers(&table.clone().with_family(b"other")));
        assert!(!table.covers(&TableScope::table("ns", "t")));
    }

    #[test]
    fn names_print_as_hbase_prints_them() {
        assert_eq!(TableScope::table("default", "t").table_name(), "t");
        let column = TableScope::table("ns", "t")
            .with_family(b"cf")
            .with_qualifier(b"q");
        assert_eq!(column.to_string(), "table=ns:t, family=cf, qualifier=q");
    }
}
