//! Table names: HBase's `namespace:qualifier`, where the namespace defaults to `default`.

use std::fmt;

use crate::error::{Result, ServiceError};

/// The namespace of tables named without one.
pub const DEFAULT_NAMESPACE: &str = "default";
/// HBase's system namespace (reserved: user tables cannot be created in it).
pub const SYSTEM_NAMESPACE: &str = "hbase";

/// A fully qualified table name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableName {
    pub namespace: String,
    pub name: String,
}

/// HBase's rule for namespace and table qualifiers: word characters, `-` and `.`, not
/// starting with `.` or `-`.
fn check_part(kind: &str, part: &str) -> Result<()> {
    let legal = !part.is_empty()
        && part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        && !part.starts_with(['.', '-']);
    if legal {
        Ok(())
    } else {
        Err(ServiceError::IllegalName(format!(
            "illegal {kind} name {part:?}: use letters, digits, '_', '-' and '.', not starting with '.' or '-'"
        )))
    }
}

/// Checks a namespace name.
pub fn check_namespace(namespace: &str) -> Result<()> {
    check_part("namespace", namespace)
}

impl TableName {
    /// Parses `ns:table` or `table` (in the default namespace).
    pub fn parse(text: &str) -> Result<TableName> {
        let (namespace, name) = match text.split_once(':') {
            Some((ns, name)) => (ns, name),
            None => (DEFAULT_NAMESPACE, text),
        };
        check_part("namespace", namespace)?;
        check_part("table", name)?;
        Ok(TableName {
            namespace: namespace.to_string(),
            name: name.to_string(),
        })
    }

    /// Parses a name given as bytes (Thrift sends names as binary).
    pub fn from_bytes(bytes: &[u8]) -> Result<TableName> {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| ServiceError::IllegalName("a table name must be UTF-8".into()))?;
        TableName::parse(text)
    }
}

impl fmt::Display for TableName {
    /// HBase's form: tables in the default namespace are named without it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace == DEFAULT_NAMESPACE {
            write!(f, "{}", self.name)
        } else {
            write!(f, "{}:{}", self.namespace, self.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        let t = TableName::parse("t1").unwrap();
        assert_eq!((t.namespace.as_str(), t.name.as_str()), ("default", "t1"));
        assert_eq!(t.to_string(), "t1");
        let t = TableName::parse("ns:t-2.x").unwrap();
        assert_eq!(t.to_string(), "ns:t-2.x");
    }

    #[test]
    fn illegal_names_are_rejected() {
        for bad in ["", ":t", "ns:", "a b", ".t", "-t", "ns:t:x", "t/1"] {
            assert!(TableName::parse(bad).is_err(), "{bad:?}");
        }
    }
}
