//! The crate's error type and the mapping of service errors onto gRPC status codes.

use strata_server::ServiceError;
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

/// The gRPC status for a service-layer error, with the codes Bigtable's clients expect:
/// they retry UNAVAILABLE, DEADLINE_EXCEEDED and (for reads) ABORTED, never NOT_FOUND,
/// INVALID_ARGUMENT or FAILED_PRECONDITION.
pub fn status(error: ServiceError) -> Status {
    match &error {
        ServiceError::TableNotFound(_)
        | ServiceError::NamespaceNotFound(_)
        | ServiceError::FamilyNotFound { .. }
        | ServiceError::ScannerNotFound(_) => Status::not_found(error.to_string()),
        ServiceError::TableExists(_) | ServiceError::NamespaceExists(_) => {
            Status::already_exists(error.to_string())
        }
        ServiceError::TableNotDisabled(_)
        | ServiceError::TableDisabled(_)
        | ServiceError::NamespaceNotEmpty(_)
        | ServiceError::IncompatibleValue(_) => Status::failed_precondition(error.to_string()),
        ServiceError::InvalidArgument(_) | ServiceError::IllegalName(_) => {
            Status::invalid_argument(error.to_string())
        }
        ServiceError::LimitExceeded { limit, .. } => {
            if strata_server::limits::is_capacity_limit(limit) {
                Status::resource_exhausted(error.to_string())
            } else {
                // Bigtable answers an oversized row key, cell or request so.
                Status::invalid_argument(error.to_string())
            }
        }
        ServiceError::CatalogCorrupt(_) => Status::data_loss(error.to_string()),
        ServiceError::Engine(strata_engine::Error::TooBusy(_)) => {
            Status::resource_exhausted(error.to_string())
        }
        ServiceError::Engine(strata_engine::Error::InvalidArgument(_)) => {
            Status::invalid_argument(error.to_string())
        }
        ServiceError::Engine(e) if e.is_region_sealed() => Status::unavailable(error.to_string()),
        ServiceError::Engine(e) if e.is_corruption() => Status::data_loss(error.to_string()),
        ServiceError::Engine(_) => Status::internal(error.to_string()),
    }
}
