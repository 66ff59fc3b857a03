//! How a service error travels: an error answer's payload is an [`m::ErrorDetail`], from
//! which the client rebuilds the error. `NotServingRegion` comes back as itself, because
//! the forwarding server's router acts on it, and so do the errors the adapters answer by
//! variant (`strata_server::remote::error_to_parts`: a table that exists, a namespace
//! that does not, `NotMaster`), each by its fixed code ([`m::ErrorName`]); every other
//! error comes back as `ServiceError::Remote` with the owner's kind and message.

use strata_server::remote::{error_from_parts, error_to_parts, Named};
use strata_server::{ErrorKind, ServiceError};

use crate::messages as m;

/// The detail the owner answers for `error`.
pub fn error_to_detail(error: &ServiceError) -> m::ErrorDetail {
    let not_serving = match error {
        ServiceError::NotServingRegion { table, region } => Some(m::NotServing {
            table: table.clone(),
            region: *region,
        }),
        _ => None,
    };
    let (name, fields) = match error_to_parts(error) {
        Some((name, fields)) => (name_to_msg(name), fields),
        None => (m::ErrorName::Unnamed, Vec::new()),
    };
    m::ErrorDetail {
        kind: kind_to_msg(error.kind()) as i32,
        message: error.to_string(),
        not_serving,
        fields,
        name: name as i32,
    }
}

/// The service error an owner's detail stands for. A name this build does not know (a
/// newer owner's) is read by the detail's kind; a kind it does not know is `Err` with a
/// reason naming the code and keeping the owner's message, which the caller reports as
/// the peer failing to answer.
pub fn detail_to_error(detail: m::ErrorDetail) -> Result<ServiceError, String> {
    let named = m::ErrorName::try_from(detail.name)
        .ok()
        .and_then(name_from_msg)
        .and_then(|name| error_from_parts(name, &detail.fields));
    if let Some(error) = named {
        return Ok(error);
    }
    if let Some(n) = detail.not_serving {
        return Ok(ServiceError::NotServingRegion {
            table: n.table,
            region: n.region,
        });
    }
    match m::ErrorKind::try_from(detail.kind) {
        Ok(kind) => Ok(ServiceError::Remote {
            kind: kind_from_msg(kind),
            message: detail.message,
        }),
        Err(_) => Err(format!(
            "an error of a kind this server does not know (code {}): {}",
            detail.kind, detail.message
        )),
    }
}

fn name_to_msg(name: Named) -> m::ErrorName {
    match name {
        Named::TableNotFound => m::ErrorName::TableNotFound,
        Named::TableExists => m::ErrorName::TableExists,
        Named::TableNotDisabled => m::ErrorName::TableNotDisabled,
        Named::TableDisabled => m::ErrorName::TableDisabled,
        Named::NamespaceNotFound => m::ErrorName::NamespaceNotFound,
        Named::NamespaceExists => m::ErrorName::NamespaceExists,
        Named::NamespaceNotEmpty => m::ErrorName::NamespaceNotEmpty,
        Named::FamilyNotFound => m::ErrorName::FamilyNotFound,
        Named::ScannerNotFound => m::ErrorName::ScannerNotFound,
        Named::InvalidArgument => m::ErrorName::InvalidArgument,
        Named::IllegalName => m::ErrorName::IllegalName,
        Named::IncompatibleValue => m::ErrorName::IncompatibleValue,
        Named::NotMaster => m::ErrorName::NotMaster,
    }
}

fn name_from_msg(name: m::ErrorName) -> Option<Named> {
    Some(match name {
        m::ErrorName::Unnamed => return None,
        m::ErrorName::TableNotFound => Named::TableNotFound,
        m::ErrorName::TableExists => Named::TableExists,
        m::ErrorName::TableNotDisabled => Named::TableNotDisabled,
        m::ErrorName::TableDisabled => Named::TableDisabled,
        m::ErrorName::NamespaceNotFound => Named::NamespaceNotFound,
        m::ErrorName::NamespaceExists => Named::NamespaceExists,
        m::ErrorName::NamespaceNotEmpty => Named::NamespaceNotEmpty,
        m::ErrorName::FamilyNotFound => Named::FamilyNotFound,
        m::ErrorName::ScannerNotFound => Named::ScannerNotFound,
        m::ErrorName::InvalidArgument => Named::InvalidArgument,
        m::ErrorName::IllegalName => Named::IllegalName,
        m::ErrorName::IncompatibleValue => Named::IncompatibleValue,
        m::ErrorName::NotMaster => Named::NotMaster,
    })
}

fn kind_to_msg(kind: ErrorKind) -> m::ErrorKind {
    match kind {
        ErrorKind::InvalidArgument => m::ErrorKind::InvalidArgument,
        ErrorKind::NotFound => m::ErrorKind::NotFound,
        ErrorKind::AlreadyExists => m::ErrorKind::AlreadyExists,
        ErrorKind::FailedPrecondition => m::ErrorKind::FailedPrecondition,
        ErrorKind::Busy => m::ErrorKind::Busy,
        ErrorKind::Unavailable => m::ErrorKind::Unavailable,
        ErrorKind::Corruption => m::ErrorKind::Corruption,
        ErrorKind::Io => m::ErrorKind::Io,
        ErrorKind::PermissionDenied => m::ErrorKind::PermissionDenied,
        // A kind newer than this crate: the receiver still gets the message, and storage
        // failing is the reading that promises least (not retryable, nothing named).
        _ => m::ErrorKind::Io,
    }
}

fn kind_from_msg(kind: m::ErrorKind) -> ErrorKind {
    match kind {
        m::ErrorKind::InvalidArgument => ErrorKind::InvalidArgument,
        m::ErrorKind::NotFound => ErrorKind::NotFound,
        m::ErrorKind::AlreadyExists => ErrorKind::AlreadyExists,
        m::ErrorKind::FailedPrecondition => ErrorKind::FailedPrecondition,
        m::ErrorKind::Busy => ErrorKind::Busy,
        m::ErrorKind::Unavailable => ErrorKind::Unavailable,
        m::ErrorKind::Corruption => ErrorKind::Corruption,
        m::ErrorKind::Io => ErrorKind::Io,
        m::ErrorKind::PermissionDenied => ErrorKind::PermissionDenied,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Through the wire encoding, as the client gets it.
    fn round_trip(error: &ServiceError) -> Result<ServiceError, String> {
        use prost::Message;
        let bytes = error_to_detail(error).encode_to_vec();
        detail_to_error(m::ErrorDetail::decode(bytes.as_slice()).unwrap())
    }

    /// The wire codes, pinned: changing one is a protocol change (docs/format.md,
    /// "Internal RPC").
    #[test]
    fn every_wire_code_is_pinned() {
        let names: Vec<(Named, i32)> = Named::ALL
            .iter()
            .map(|&name| (name, name_to_msg(name) as i32))
            .collect();
        use Named as N;
        assert_eq!(
            names,
            [
                (N::TableNotFound, 1),
                (N::TableExists, 2),
                (N::TableNotDisabled, 3),
                (N::TableDisabled, 4),
                (N::NamespaceNotFound, 5),
                (N::NamespaceExists, 6),
                (N::NamespaceNotEmpty, 7),
                (N::FamilyNotFound, 8),
                (N::ScannerNotFound, 9),
                (N::InvalidArgument, 10),
                (N::IllegalName, 11),
                (N::IncompatibleValue, 12),
                (N::NotMaster, 13),
            ]
        );
        assert_eq!(m::ErrorName::Unnamed as i32, 0);
        for (name, code) in names {
            let back = m::ErrorName::try_from(code).ok().and_then(name_from_msg);
            assert_eq!(back, Some(name), "code {code}");
        }
        let kinds: Vec<(ErrorKind, i32)> = ErrorKind::ALL
            .iter()
            .map(|&kind| (kind, kind_to_msg(kind) as i32))
            .collect();
        use ErrorKind as K;
        assert_eq!(
            kinds,
            [
                (K::InvalidArgument, 0),
                (K::NotFound, 1),
                (K::AlreadyExists, 2),
                (K::FailedPrecondition, 3),
                (K::Busy, 4),
                (K::Unavailable, 5),
                (K::Corruption, 6),
                (K::Io, 7),
                (K::PermissionDenied, 8),
            ]
        );
    }

    #[test]
    fn not_serving_region_comes_back_as_itself() {
        let sent = ServiceError::NotServingRegion {
            table: "ns:t".into(),
            region: 7,
        };
        let got = round_trip(&sent).unwrap();
        assert!(matches!(
            &got,
            ServiceError::NotServingRegion { table, region: 7 } if table == "ns:t"
        ));
        assert_eq!(got.to_string(), sent.to_string());
    }

    #[test]
    fn named_errors_come_back_as_themselves() {
        let sent = ServiceError::FamilyNotFound {
            table: "t".into(),
            family: "nope".into(),
        };
        let detail = error_to_detail(&sent);
        assert_eq!(detail.name, m::ErrorName::FamilyNotFound as i32);
        let got = round_trip(&sent).unwrap();
        assert!(matches!(
            &got,
            ServiceError::FamilyNotFound { table, family } if table == "t" && family == "nope"
        ));
        assert_eq!(got.to_string(), sent.to_string());
        let refused = round_trip(&ServiceError::NotMaster).unwrap();
        assert!(matches!(refused, ServiceError::NotMaster));
    }

    #[test]
    fn other_errors_come_back_as_remote_with_kind_and_message() {
        let sent = ServiceError::CatalogCorrupt("bad record".into());
        assert_eq!(error_to_detail(&sent).name, m::ErrorName::Unnamed as i32);
        let got = round_trip(&sent).unwrap();
        assert!(matches!(
            got,
            ServiceError::Remote {
                kind: ErrorKind::Corruption,
                ..
            }
        ));
        assert_eq!(got.to_string(), sent.to_string());
    }

    #[test]
    fn every_kind_survives() {
        for kind in ErrorKind::ALL {
            let sent = ServiceError::Remote {
                kind,
                message: format!("{kind:?} happened"),
            };
            let got = round_trip(&sent).unwrap();
            assert_eq!(got.kind(), kind);
            assert_eq!(got.to_string(), sent.to_string());
        }
    }

    #[test]
    fn an_unknown_name_is_read_by_its_kind() {
        let detail = m::ErrorDetail {
            kind: m::ErrorKind::AlreadyExists as i32,
            message: "snapshot s exists".into(),
            name: 99,
            fields: vec!["s".into()],
            ..Default::default()
        };
        let got = detail_to_error(detail).unwrap();
        assert!(
            matches!(&got, ServiceError::Remote { kind: ErrorKind::AlreadyExists, message }
                if message == "snapshot s exists"),
            "{got:?}"
        );
    }

    #[test]
    fn an_unknown_kind_is_a_clear_error_keeping_the_message() {
        let detail = m::ErrorDetail {
            kind: 99,
            message: "from the future".into(),
            ..Default::default()
        };
        let reason = detail_to_error(detail).unwrap_err();
        assert!(
            reason.contains("code 99") && reason.contains("from the future"),
            "{reason}"
        );
    }

    /// A version 2 detail named its error in field 4 as text; this build skips the field
    /// (never misreads it) and rebuilds the error from its kind and message.
    #[test]
    fn the_retired_text_name_is_skipped() {
        use prost::Message;
        let mut bytes = m::ErrorDetail {
            kind: m::ErrorKind::NotFound as i32,
            message: "table t does not exist".into(),
            ..Default::default()
        }
        .encode_to_vec();
        bytes.extend_from_slice(&[0x22, 13]); // field 4, length-delimited, 13 bytes
        bytes.extend_from_slice(b"TableNotFound");
        let detail = m::ErrorDetail::decode(bytes.as_slice()).unwrap();
        assert_eq!(detail.name, m::ErrorName::Unnamed as i32);
        let got = detail_to_error(detail).unwrap();
        assert!(matches!(
            got,
            ServiceError::Remote {
                kind: ErrorKind::NotFound,
                ..
            }
        ));
    }
}
