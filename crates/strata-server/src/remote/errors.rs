//! Service errors as another server gets them back. The adapters answer some errors by
//! what they are, not only by their kind (HBase's Thrift server raises `AlreadyExists`
//! for a table that exists, REST answers 404 for a missing table), so an error a peer
//! answered must come back as the same variant: [`error_to_parts`] names the variants
//! that carry only text, by a [`Named`] the wire carries as a number, and
//! [`error_from_parts`] rebuilds them. Every other error comes back as
//! `ServiceError::Remote` with its kind and message.

use crate::error::ServiceError;

/// The variants rebuilt exactly on the other side. A closed list, so that a peer crate's
/// match onto its wire codes is exhaustive and a variant added here cannot travel
/// without a code of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Named {
    TableNotFound,
    TableExists,
    TableNotDisabled,
    TableDisabled,
    NamespaceNotFound,
    NamespaceExists,
    NamespaceNotEmpty,
    FamilyNotFound,
    ScannerNotFound,
    InvalidArgument,
    IllegalName,
    IncompatibleValue,
    NotMaster,
}

impl Named {
    /// Every name, for the peer crate's code table test.
    pub const ALL: [Named; 13] = [
        Named::TableNotFound,
        Named::TableExists,
        Named::TableNotDisabled,
        Named::TableDisabled,
        Named::NamespaceNotFound,
        Named::NamespaceExists,
        Named::NamespaceNotEmpty,
        Named::FamilyNotFound,
        Named::ScannerNotFound,
        Named::InvalidArgument,
        Named::IllegalName,
        Named::IncompatibleValue,
        Named::NotMaster,
    ];
}

/// The variant's name and its fields as text, for the variants rebuilt exactly.
pub fn error_to_parts(error: &ServiceError) -> Option<(Named, Vec<String>)> {
    use ServiceError as E;
    let one = |name: Named, text: &str| Some((name, vec![text.to_string()]));
    match error {
        E::TableNotFound(t) => one(Named::TableNotFound, t),
        E::TableExists(t) => one(Named::TableExists, t),
        E::TableNotDisabled(t) => one(Named::TableNotDisabled, t),
        E::TableDisabled(t) => one(Named::TableDisabled, t),
        E::NamespaceNotFound(n) => one(Named::NamespaceNotFound, n),
        E::NamespaceExists(n) => one(Named::NamespaceExists, n),
        E::NamespaceNotEmpty(n) => one(Named::NamespaceNotEmpty, n),
        E::FamilyNotFound { table, family } => {
            Some((Named::FamilyNotFound, vec![table.clone(), family.clone()]))
        }
        E::ScannerNotFound(id) => one(Named::ScannerNotFound, &id.to_string()),
        E::InvalidArgument(m) => one(Named::InvalidArgument, m),
        E::IllegalName(m) => one(Named::IllegalName, m),
        E::IncompatibleValue(m) => one(Named::IncompatibleValue, m),
        E::NotMaster => Some((Named::NotMaster, Vec::new())),
        _ => None,
    }
}

/// The error [`error_to_parts`] described; `None` for fields that do not fit the name,
/// which the caller treats as a remote error of the given kind.
pub fn error_from_parts(name: Named, fields: &[String]) -> Option<ServiceError> {
    use ServiceError as E;
    let text = || match fields {
        [one] => Some(one.clone()),
        _ => None,
    };
    Some(match name {
        Named::TableNotFound => E::TableNotFound(text()?),
        Named::TableExists => E::TableExists(text()?),
        Named::TableNotDisabled => E::TableNotDisabled(text()?),
        Named::TableDisabled => E::TableDisabled(text()?),
        Named::NamespaceNotFound => E::NamespaceNotFound(text()?),
        Named::NamespaceExists => E::NamespaceExists(text()?),
        Named::NamespaceNotEmpty => E::NamespaceNotEmpty(text()?),
        Named::FamilyNotFound => match fields {
            [table, family] => E::FamilyNotFound {
                table: table.clone(),
                family: family.clone(),
            },
            _ => return None,
        },
        Named::ScannerNotFound => E::ScannerNotFound(text()?.parse().ok()?),
        Named::InvalidArgument => E::InvalidArgument(text()?),
        Named::IllegalName => E::IllegalName(text()?),
        Named::IncompatibleValue => E::IncompatibleValue(text()?),
        Named::NotMaster if fields.is_empty() => E::NotMaster,
        Named::NotMaster => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_errors_come_back_as_themselves() {
        use ServiceError as E;
        let errors = vec![
            E::TableNotFound("t".into()),
            E::TableExists("t".into()),
            E::TableNotDisabled("t".into()),
            E::TableDisabled("t".into()),
            E::NamespaceNotFound("n".into()),
            E::NamespaceExists("n".into()),
            E::NamespaceNotEmpty("n".into()),
            E::FamilyNotFound {
                table: "t".into(),
                family: "f".into(),
            },
            E::ScannerNotFound(42),
            E::InvalidArgument("bad".into()),
            E::IllegalName("bad name".into()),
            E::IncompatibleValue("not 8 bytes".into()),
            E::NotMaster,
        ];
        let mut seen = Vec::new();
        for error in errors {
            let (name, fields) = error_to_parts(&error).unwrap();
            seen.push(name);
            let back = error_from_parts(name, &fields).unwrap();
            assert_eq!(back.to_string(), error.to_string());
            assert_eq!(
                std::mem::discriminant(&back),
                std::mem::discriminant(&error)
            );
        }
        assert_eq!(seen, Named::ALL, "ALL lists every name, each once");
    }

    #[test]
    fn wrong_fields_are_not_rebuilt() {
        assert!(error_from_parts(Named::TableExists, &[]).is_none());
        let two = ["a".to_string(), "b".to_string()];
        assert!(error_from_parts(Named::TableExists, &two).is_none());
        assert!(error_from_parts(Named::FamilyNotFound, &two[..1]).is_none());
        assert!(error_from_parts(Named::ScannerNotFound, &["x".into()]).is_none());
        assert!(error_from_parts(Named::NotMaster, &two[..1]).is_none());
        let engine = ServiceError::NotServingRegion {
            table: "t".into(),
            region: 1,
        };
        assert!(error_to_parts(&engine).is_none());
    }
}
