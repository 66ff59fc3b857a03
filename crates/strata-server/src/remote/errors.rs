//! Service errors as another server gets them back. The adapters answer some errors by
//! what they are, not only by their kind (HBase's Thrift server raises `AlreadyExists`
//! for a table that exists, REST answers 404 for a missing table), so an error a peer
//! answered must come back as the same variant: [`error_to_parts`] names the variants
//! that carry only text, and [`error_from_parts`] rebuilds them. Every other error comes
//! back as `ServiceError::Remote` with its kind and message.

use crate::error::ServiceError;

/// The variant's name and its fields as text, for the variants rebuilt exactly.
pub fn error_to_parts(error: &ServiceError) -> Option<(&'static str, Vec<String>)> {
    use ServiceError as E;
    let one = |name: &'static str, text: &str| Some((name, vec![text.to_string()]));
    match error {
        E::TableNotFound(t) => one("TableNotFound", t),
        E::TableExists(t) => one("TableExists", t),
        E::TableNotDisabled(t) => one("TableNotDisabled", t),
        E::TableDisabled(t) => one("TableDisabled", t),
        E::NamespaceNotFound(n) => one("NamespaceNotFound", n),
        E::NamespaceExists(n) => one("NamespaceExists", n),
        E::NamespaceNotEmpty(n) => one("NamespaceNotEmpty", n),
        E::FamilyNotFound { table, family } => {
            Some(("FamilyNotFound", vec![table.clone(), family.clone()]))
        }
        E::ScannerNotFound(id) => one("ScannerNotFound", &id.to_string()),
        E::InvalidArgument(m) => one("InvalidArgument", m),
        E::IllegalName(m) => one("IllegalName", m),
        E::IncompatibleValue(m) => one("IncompatibleValue", m),
        E::NotMaster => Some(("NotMaster", Vec::new())),
        _ => None,
    }
}

/// The error [`error_to_parts`] described; `None` for a name or fields it does not know
/// (a newer server's), which the caller treats as a remote error of the given kind.
pub fn error_from_parts(name: &str, fields: &[String]) -> Option<ServiceError> {
    use ServiceError as E;
    let text = || fields.first().cloned();
    Some(match (name, fields.len()) {
        ("TableNotFound", 1) => E::TableNotFound(text()?),
        ("TableExists", 1) => E::TableExists(text()?),
        ("TableNotDisabled", 1) => E::TableNotDisabled(text()?),
        ("TableDisabled", 1) => E::TableDisabled(text()?),
        ("NamespaceNotFound", 1) => E::NamespaceNotFound(text()?),
        ("NamespaceExists", 1) => E::NamespaceExists(text()?),
        ("NamespaceNotEmpty", 1) => E::NamespaceNotEmpty(text()?),
        ("FamilyNotFound", 2) => E::FamilyNotFound {
            table: fields[0].clone(),
            family: fields[1].clone(),
        },
        ("ScannerNotFound", 1) => E::ScannerNotFound(text()?.parse().ok()?),
        ("InvalidArgument", 1) => E::InvalidArgument(text()?),
        ("IllegalName", 1) => E::IllegalName(text()?),
        ("IncompatibleValue", 1) => E::IncompatibleValue(text()?),
        ("NotMaster", 0) => E::NotMaster,
        _ => return None,
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
        for error in errors {
            let (name, fields) = error_to_parts(&error).unwrap();
            let back = error_from_parts(name, &fields).unwrap();
            assert_eq!(back.to_string(), error.to_string());
            assert_eq!(
                std::mem::discriminant(&back),
                std::mem::discriminant(&error)
            );
        }
    }

    #[test]
    fn unknown_names_and_wrong_fields_are_not_rebuilt() {
        assert!(error_from_parts("Nope", &[]).is_none());
        assert!(error_from_parts("TableExists", &[]).is_none());
        assert!(error_from_parts("ScannerNotFound", &["x".into()]).is_none());
        let engine = ServiceError::NotServingRegion {
            table: "t".into(),
            region: 1,
        };
        assert!(error_to_parts(&engine).is_none());
    }
}
