//! Exceptions as HBase's client expects them: a Java class name it rebuilds, a message,
//! and whether to retry. The client's retry and relocation logic keys on the class name
//! (`NotServingRegionException` makes it re-read hbase:meta), so the names are exact.

use strata_server::error::{ErrorKind, ServiceError};

use crate::pb;

/// The exception classes Strata sends.
pub mod class {
    pub const IO: &str = "java.io.IOException";
    pub const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";
    pub const DO_NOT_RETRY: &str = "org.apache.hadoop.hbase.DoNotRetryIOException";
    pub const NOT_SERVING_REGION: &str = "org.apache.hadoop.hbase.NotServingRegionException";
    pub const TABLE_NOT_FOUND: &str = "org.apache.hadoop.hbase.TableNotFoundException";
    pub const TABLE_EXISTS: &str = "org.apache.hadoop.hbase.TableExistsException";
    pub const TABLE_NOT_ENABLED: &str = "org.apache.hadoop.hbase.TableNotEnabledException";
    pub const TABLE_NOT_DISABLED: &str = "org.apache.hadoop.hbase.TableNotDisabledException";
    pub const NAMESPACE_NOT_FOUND: &str = "org.apache.hadoop.hbase.NamespaceNotFoundException";
    pub const NAMESPACE_EXISTS: &str = "org.apache.hadoop.hbase.NamespaceExistException";
    pub const CONSTRAINT: &str = "org.apache.hadoop.hbase.constraint.ConstraintException";
    pub const NO_SUCH_FAMILY: &str =
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException";
    pub const UNKNOWN_SCANNER: &str = "org.apache.hadoop.hbase.UnknownScannerException";
    pub const OUT_OF_ORDER_SCANNER_NEXT: &str =
        "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException";
    pub const REGION_TOO_BUSY: &str = "org.apache.hadoop.hbase.RegionTooBusyException";
    pub const CALL_QUEUE_TOO_BIG: &str = "org.apache.hadoop.hbase.CallQueueTooBigException";
    pub const FATAL_CONNECTION: &str = "org.apache.hadoop.hbase.ipc.FatalConnectionException";
    pub const UNSUPPORTED_CODEC: &str = "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException";
    pub const UNSUPPORTED_COMPRESSION: &str =
        "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException";
    pub const REGION_MOVED: &str = "org.apache.hadoop.hbase.exceptions.RegionMovedException";
    pub const UNKNOWN_REGION: &str = "org.apache.hadoop.hbase.UnknownRegionException";
    pub const SNAPSHOT_EXISTS: &str = "org.apache.hadoop.hbase.snapshot.SnapshotExistsException";
    pub const SNAPSHOT_NOT_FOUND: &str =
        "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException";
}

/// An exception to send back for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteException {
    pub class: &'static str,
    pub message: String,
    pub do_not_retry: bool,
}

impl RemoteException {
    /// An exception the client may retry.
    pub fn retry(class: &'static str, message: impl Into<String>) -> RemoteException {
        RemoteException {
            class,
            message: message.into(),
            do_not_retry: false,
        }
    }

    /// An exception the client must not retry.
    pub fn fatal(class: &'static str, message: impl Into<String>) -> RemoteException {
        RemoteException {
            class,
            message: message.into(),
            do_not_retry: true,
        }
    }

    /// A request that is wrong in itself: `DoNotRetryIOException`.
    pub fn invalid(message: impl Into<String>) -> RemoteException {
        RemoteException::fatal(class::DO_NOT_RETRY, message)
    }

    /// The RPC layer's form.
    pub fn to_proto(&self) -> pb::ExceptionResponse {
        pb::ExceptionResponse {
            exception_class_name: Some(self.class.to_string()),
            stack_trace: Some(format!("{}: {}", self.class, self.message)),
            hostname: None,
            port: None,
            do_not_retry: Some(self.do_not_retry),
            server_overloaded: None,
        }
    }

    /// The form a Multi result carries per action: the class name and the message.
    pub fn to_name_bytes(&self) -> pb::NameBytesPair {
        pb::NameBytesPair {
            name: self.class.to_string(),
            value: Some(self.message.clone().into()),
        }
    }
}

impl From<ServiceError> for RemoteException {
    fn from(error: ServiceError) -> RemoteException {
        let message = error.to_string();
        let exact = match &error {
            ServiceError::TableNotFound(_) => Some(class::TABLE_NOT_FOUND),
            ServiceError::TableExists(_) => Some(class::TABLE_EXISTS),
            ServiceError::TableNotDisabled(_) => Some(class::TABLE_NOT_DISABLED),
            ServiceError::TableDisabled(_) => Some(class::TABLE_NOT_ENABLED),
            ServiceError::NamespaceNotFound(_) => Some(class::NAMESPACE_NOT_FOUND),
            ServiceError::NamespaceExists(_) => Some(class::NAMESPACE_EXISTS),
            ServiceError::NamespaceNotEmpty(_) => Some(class::CONSTRAINT),
            ServiceError::FamilyNotFound { .. } => Some(class::NO_SUCH_FAMILY),
            ServiceError::ScannerNotFound(_) => Some(class::UNKNOWN_SCANNER),
            ServiceError::NotServingRegion { .. } => Some(class::NOT_SERVING_REGION),
            ServiceError::SnapshotExists(_) => Some(class::SNAPSHOT_EXISTS),
            ServiceError::SnapshotNotFound(_) => Some(class::SNAPSHOT_NOT_FOUND),
            _ => None,
        };
        if let Some(class) = exact {
            // Every exact class above is a DoNotRetryIOException in HBase except the region
            // one, which the client answers by relocating.
            let do_not_retry = class != class::NOT_SERVING_REGION;
            return RemoteException {
                class,
                message,
                do_not_retry,
            };
        }
        by_kind(error.kind(), message)
    }
}

fn by_kind(kind: ErrorKind, message: String) -> RemoteException {
    match kind {
        ErrorKind::Busy => RemoteException::retry(class::REGION_TOO_BUSY, message),
        ErrorKind::Unavailable => RemoteException::retry(class::NOT_SERVING_REGION, message),
        ErrorKind::Io => RemoteException::retry(class::IO, message),
        ErrorKind::PermissionDenied => RemoteException {
            class: class::ACCESS_DENIED,
            message,
            do_not_retry: true,
        },
        // Invalid arguments, failed preconditions and damaged data: a retry gives the
        // same answer.
        _ => RemoteException::invalid(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_errors_map_to_hbase_classes() {
        let e = RemoteException::from(ServiceError::TableNotFound("t".into()));
        assert_eq!(e.class, class::TABLE_NOT_FOUND);
        assert!(e.do_not_retry);
        let e = RemoteException::from(ServiceError::NotServingRegion {
            table: "t".into(),
            region: 3,
        });
        assert_eq!(e.class, class::NOT_SERVING_REGION);
        assert!(!e.do_not_retry);
        let e = RemoteException::from(ServiceError::InvalidArgument("bad".into()));
        assert_eq!(e.class, class::DO_NOT_RETRY);
        assert_eq!(e.message, "bad");
    }

    #[test]
    fn every_kind_maps_to_a_class() {
        for kind in ErrorKind::ALL {
            let e = by_kind(kind, "m".into());
            assert!(e.class.contains('.'), "{kind:?}");
            assert_eq!(
                e.do_not_retry,
                !kind.is_retryable() && kind != ErrorKind::Io
            );
        }
    }
}
