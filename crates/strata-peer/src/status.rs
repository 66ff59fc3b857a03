//! How a service error travels: as a gRPC status whose code suits the error's kind (for
//! tools that only see the code) and whose details bytes carry an [`m::ErrorDetail`], from
//! which the client rebuilds the error. `NotServingRegion` comes back as itself, because
//! the forwarding server's router acts on it, and so do the errors the adapters answer by
//! variant (`strata_server::remote::error_to_parts`: a table that exists, a namespace
//! that does not, `NotMaster`); every other error comes back as `ServiceError::Remote`
//! with the owner's kind and message.

use prost::Message;
use strata_server::remote::{error_from_parts, error_to_parts};
use strata_server::{ErrorKind, ServiceError};
use tonic::{Code, Status};

use crate::messages as m;

/// The status the owner answers for `error`.
pub fn error_to_status(error: &ServiceError) -> Status {
    let kind = error.kind();
    let message = error.to_string();
    let not_serving = match error {
        ServiceError::NotServingRegion { table, region } => Some(m::NotServing {
            table: table.clone(),
            region: *region,
        }),
        _ => None,
    };
    let parts = error_to_parts(error);
    let detail = m::ErrorDetail {
        kind: kind_to_msg(kind) as i32,
        message: message.clone(),
        not_serving,
        variant: parts.as_ref().map_or("", |p| p.0).to_string(),
        fields: parts.map(|p| p.1).unwrap_or_default(),
    };
    Status::with_details(code_of(kind), message, detail.encode_to_vec().into())
}

/// The service error a status from `peer` stands for. A status without details did not
/// come from the owner's service (a transport failure, a deadline, a refused connection,
/// a message over the size limit): the peer could not answer, so it is `PeerUnavailable`.
pub fn status_to_error(peer: &str, status: &Status) -> ServiceError {
    let detail = (!status.details().is_empty())
        .then(|| m::ErrorDetail::decode(status.details()).ok())
        .flatten();
    let Some(detail) = detail else {
        return unavailable(peer, status);
    };
    if let Some(error) = error_from_parts(&detail.variant, &detail.fields) {
        return error;
    }
    if let Some(n) = detail.not_serving {
        return ServiceError::NotServingRegion {
            table: n.table,
            region: n.region,
        };
    }
    match m::ErrorKind::try_from(detail.kind) {
        Ok(kind) => ServiceError::Remote {
            kind: kind_from_msg(kind),
            message: detail.message,
        },
        Err(_) => unavailable(peer, status),
    }
}

fn unavailable(peer: &str, status: &Status) -> ServiceError {
    ServiceError::PeerUnavailable {
        peer: peer.to_string(),
        reason: format!("{:?}: {}", status.code(), status.message()),
        unsent: never_sent(status),
    }
}

/// True when the transport says no connection was made (tonic reports a failed connect of
/// a lazy channel as UNAVAILABLE "tcp connect error"), so the request cannot have been
/// applied and may be sent elsewhere.
fn never_sent(status: &Status) -> bool {
    status.code() == Code::Unavailable && status.message().contains("connect error")
}

/// The gRPC code closest to each kind.
fn code_of(kind: ErrorKind) -> Code {
    match kind {
        ErrorKind::InvalidArgument => Code::InvalidArgument,
        ErrorKind::NotFound => Code::NotFound,
        ErrorKind::AlreadyExists => Code::AlreadyExists,
        ErrorKind::FailedPrecondition => Code::FailedPrecondition,
        ErrorKind::Busy => Code::ResourceExhausted,
        ErrorKind::Unavailable => Code::Unavailable,
        ErrorKind::Corruption => Code::DataLoss,
        ErrorKind::Io => Code::Internal,
    }
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

    const KINDS: [ErrorKind; 8] = [
        ErrorKind::InvalidArgument,
        ErrorKind::NotFound,
        ErrorKind::AlreadyExists,
        ErrorKind::FailedPrecondition,
        ErrorKind::Busy,
        ErrorKind::Unavailable,
        ErrorKind::Corruption,
        ErrorKind::Io,
    ];

    #[test]
    fn not_serving_region_comes_back_as_itself() {
        let sent = ServiceError::NotServingRegion {
            table: "ns:t".into(),
            region: 7,
        };
        let got = status_to_error("p:1", &error_to_status(&sent));
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
        let status = error_to_status(&sent);
        assert_eq!(status.code(), Code::NotFound);
        let got = status_to_error("p:1", &status);
        assert!(matches!(
            &got,
            ServiceError::FamilyNotFound { table, family } if table == "t" && family == "nope"
        ));
        assert_eq!(got.to_string(), sent.to_string());
        let refused = status_to_error("p:1", &error_to_status(&ServiceError::NotMaster));
        assert!(matches!(refused, ServiceError::NotMaster));
    }

    #[test]
    fn other_errors_come_back_as_remote_with_kind_and_message() {
        let sent = ServiceError::CatalogCorrupt("bad record".into());
        let status = error_to_status(&sent);
        assert_eq!(status.code(), Code::DataLoss);
        let got = status_to_error("p:1", &status);
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
        for kind in KINDS {
            let sent = ServiceError::Remote {
                kind,
                message: format!("{kind:?} happened"),
            };
            let got = status_to_error("p:1", &error_to_status(&sent));
            assert_eq!(got.kind(), kind);
            assert_eq!(got.to_string(), sent.to_string());
        }
    }

    #[test]
    fn a_status_without_details_means_the_peer_did_not_answer() {
        let got = status_to_error("p:1", &Status::unavailable("connection refused"));
        assert!(matches!(&got, ServiceError::PeerUnavailable { peer, .. } if peer == "p:1"));
        let garbage = Status::with_details(Code::Internal, "x", vec![0xff, 0xff].into());
        assert!(matches!(
            status_to_error("p:1", &garbage),
            ServiceError::PeerUnavailable { .. }
        ));
    }
}
