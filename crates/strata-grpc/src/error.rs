//! The crate's error type and the mapping of service errors onto gRPC status codes.

use strata_server::{ErrorKind, ServiceError};
use tonic::Status;

/// What can stop the gRPC server itself (request failures are `tonic::Status`es).
#[derive(Debug, thiserror::Error)]
pub enum GrpcError {
    #[error("grpc transport: {0}")]
    Transport(String),
    /// Stored data failed a checksum; kept apart so callers never retry it blindly.
    #[error("corruption: {0}")]
    Corruption(String),
}

/// The gRPC status for a service-layer error, by its kind, with the codes Bigtable's clients
/// expect: they retry UNAVAILABLE, DEADLINE_EXCEEDED and (for reads) ABORTED, never
/// NOT_FOUND, INVALID_ARGUMENT or FAILED_PRECONDITION.
pub fn status(error: ServiceError) -> Status {
    let message = error.to_string();
    match error.kind() {
        ErrorKind::NotFound => Status::not_found(message),
        ErrorKind::AlreadyExists => Status::already_exists(message),
        ErrorKind::FailedPrecondition => Status::failed_precondition(message),
        // Bigtable answers an oversized row key, cell or request so.
        ErrorKind::InvalidArgument => Status::invalid_argument(message),
        ErrorKind::Busy => Status::resource_exhausted(message),
        ErrorKind::Unavailable => Status::unavailable(message),
        ErrorKind::Corruption => Status::data_loss(message),
        ErrorKind::Io => Status::internal(message),
        ErrorKind::PermissionDenied => Status::permission_denied(message),
        // A kind newer than this adapter: a failure it cannot say more about.
        _ => Status::internal(message),
    }
}
