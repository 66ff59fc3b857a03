//! How a service error travels: an error answer's payload is an [`m::ErrorDetail`], from
//! which the client rebuilds the error. `NotServingRegion` comes back as itself, because
//! the forwarding server's router acts on it, and so do the errors the adapters answer by
//! variant (`strata_server::remote::error_to_parts`: a table that exists, a namespace
//! that does not, `NotMaster`); every other error comes back as `ServiceError::Remote`
//! with the owner's kind and message.

use strata_server::remote::{error_from_parts, error_to_parts};
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
    let parts = error_to_parts(error);
    m::ErrorDetail {
        kind: kind_to_msg(error.kind()) as i32,
        message: error.to_string(),
        not_serving,
        variant: parts.as_ref().map_or("", |p| p.0).to_string(),
        fields: parts.map(|p| p.1).unwrap_or_default(),
    }
}

/// The service error an owner's detail stands for; `None` for a kind this build does not
/// know (the caller treats it as a malformed answer).
pub fn detail_to_error(detail: m::ErrorDetail) -> Option<ServiceError> {
    if let Some(error) = error_from_parts(&detail.variant, &detail.fields) {
        return Some(error);
    }
    if let Some(n) = detail.not_serving {
        return Some(ServiceError::NotServingRegion {
            table: n.table,
            region: n.region,
        });
    }
    let kind = m::ErrorKind::try_from(detail.kind).ok()?;
    Some(ServiceError::Remote {
        kind: kind_from_msg(kind),
        message: detail.message,
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Through the wire encoding, as the client gets it.
    fn round_trip(error: &ServiceError) -> Option<ServiceError> {
        use prost::Message;
        let bytes = error_to_detail(error).encode_to_vec();
        detail_to_error(m::ErrorDetail::decode(bytes.as_slice()).unwrap())
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
    fn an_unknown_kind_is_not_an_error_of_the_owner() {
        let detail = m::ErrorDetail {
            kind: 99,
            message: "from the future".into(),
            ..Default::default()
        };
        assert!(detail_to_error(detail).is_none());
    }
}
