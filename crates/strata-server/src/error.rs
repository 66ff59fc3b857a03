//! The service layer's one error type. Network adapters map each kind to their protocol's
//! error (Thrift IOError / IllegalArgument / AlreadyExists, gRPC status codes, HTTP status).

/// What can go wrong in a service call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    #[error("table {0} does not exist")]
    TableNotFound(String),
    #[error("table {0} already exists")]
    TableExists(String),
    // The HBase exception names are in the messages: clients and scripts match on them.
    #[error("TableNotDisabledException: table {0} is enabled; disable it first")]
    TableNotDisabled(String),
    #[error("TableNotEnabledException: table {0} is disabled")]
    TableDisabled(String),
    #[error("namespace {0} does not exist")]
    NamespaceNotFound(String),
    #[error("namespace {0} already exists")]
    NamespaceExists(String),
    #[error("namespace {0} is not empty")]
    NamespaceNotEmpty(String),
    #[error("column family {family} does not exist in table {table}")]
    FamilyNotFound { table: String, family: String },
    #[error("scanner {0} does not exist or has expired")]
    ScannerNotFound(u64),
    #[error("{0}")]
    InvalidArgument(String),
    /// A namespace or table name that breaks HBase's naming rules.
    #[error("{0}")]
    IllegalName(String),
    /// A stored value that an operation cannot use (an increment of a value that is not
    /// 8 bytes wide).
    #[error("{0}")]
    IncompatibleValue(String),
    /// A request over one of the configured limits; `limit` is its key in the `[limits]`
    /// section of the server configuration.
    #[error("limit exceeded: limits.{limit} is {max}, the request needs {value}")]
    LimitExceeded {
        limit: &'static str,
        value: u64,
        max: u64,
        /// What the limit bounds, which decides how a client may react.
        class: LimitClass,
    },
    /// The region is not served here (cluster mode): it moved, or this server's view of
    /// who serves it is older than the request's. Nothing was applied.
    #[error(
        "NotServingRegionException: region {region} of table {table} is not served by this server"
    )]
    NotServingRegion { table: String, region: u64 },
    /// The server a request was forwarded to could not be reached or did not answer.
    /// `unsent`: the request never reached it (no connection), so nothing was applied.
    #[error("forwarding to {peer} failed: {reason}")]
    PeerUnavailable {
        peer: String,
        reason: String,
        unsent: bool,
    },
    /// An administration request reached a server that is not (or no longer) the master
    /// (cluster mode). Nothing was done; the sender finds the master and sends it again.
    #[error("this server is not the master; send administration to the master")]
    NotMaster,
    /// An error the server a request was forwarded to answered, with its kind and message
    /// as that server gave them (the adapters map it by kind like any other).
    #[error("{message}")]
    Remote { kind: ErrorKind, message: String },
    #[error("SnapshotExistsException: snapshot {0} already exists")]
    SnapshotExists(String),
    #[error("SnapshotDoesNotExistException: snapshot {0} does not exist")]
    SnapshotNotFound(String),
    /// A call answered on a network server's task (`inline::here_only`) needed to wait
    /// on something outside this server (named). It is run again off the async workers;
    /// a client never sees this error.
    #[error("a call on a network thread would wait on {0}; it runs again on the blocking pool")]
    WouldBlock(&'static str),
    #[error("catalog is corrupt: {0}")]
    CatalogCorrupt(String),
    /// HBase's `AccessDeniedException`: the text names the user, the scope and the
    /// permission that was missing.
    #[error("{0}")]
    AccessDenied(String),
    #[error(transparent)]
    Engine(#[from] strata_engine::Error),
}

/// The service layer's result type.
pub type Result<T> = std::result::Result<T, ServiceError>;

/// What a caller can do about a [`ServiceError`]: the workspace's one kind
/// (`strata-runtime`). Every adapter's error mapper switches on it (refining only where its
/// protocol has a finer code), and a retrying client or a router acts on
/// [`ErrorKind::is_retryable`].
pub use strata_runtime::ErrorKind;

/// What a configured limit bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitClass {
    /// The server's capacity (open scanners): it may clear, so the request may be retried.
    Capacity,
    /// How much one request carries (value bytes, cells, rows): HTTP's 413.
    Payload,
    /// The shape of a request (a key, qualifier or filter too long or too deep).
    Shape,
}

impl ServiceError {
    /// What a caller can do about the error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ServiceError::TableNotFound(_)
            | ServiceError::NamespaceNotFound(_)
            | ServiceError::FamilyNotFound { .. }
            | ServiceError::ScannerNotFound(_)
            | ServiceError::SnapshotNotFound(_) => ErrorKind::NotFound,
            ServiceError::TableExists(_)
            | ServiceError::NamespaceExists(_)
            | ServiceError::SnapshotExists(_) => ErrorKind::AlreadyExists,
            ServiceError::TableNotDisabled(_)
            | ServiceError::TableDisabled(_)
            | ServiceError::NamespaceNotEmpty(_)
            | ServiceError::IncompatibleValue(_) => ErrorKind::FailedPrecondition,
            ServiceError::InvalidArgument(_) | ServiceError::IllegalName(_) => {
                ErrorKind::InvalidArgument
            }
            ServiceError::LimitExceeded { class, .. } => match class {
                LimitClass::Capacity => ErrorKind::Busy,
                LimitClass::Payload | LimitClass::Shape => ErrorKind::InvalidArgument,
            },
            ServiceError::NotServingRegion { .. }
            | ServiceError::PeerUnavailable { .. }
            | ServiceError::NotMaster
            | ServiceError::WouldBlock(_) => ErrorKind::Unavailable,
            ServiceError::Remote { kind, .. } => *kind,
            ServiceError::CatalogCorrupt(_) => ErrorKind::Corruption,
            ServiceError::AccessDenied(_) => ErrorKind::PermissionDenied,
            ServiceError::Engine(e) => e.kind(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_say_what_a_caller_can_do() {
        let sealed = ServiceError::Engine(strata_engine::Error::RegionSealed { region: 3 });
        assert_eq!(sealed.kind(), ErrorKind::Unavailable);
        assert!(sealed.kind().is_retryable());
        let busy = ServiceError::Engine(strata_engine::Error::TooBusy("memory".into()));
        assert_eq!(busy.kind(), ErrorKind::Busy);
        let corrupt =
            ServiceError::Engine(strata_engine::Error::corruption("/x.sst", 9, "bad crc"));
        assert_eq!(corrupt.kind(), ErrorKind::Corruption);
        assert!(!corrupt.kind().is_retryable());
        let scanners = ServiceError::LimitExceeded {
            limit: "max_open_scanners",
            value: 2,
            max: 1,
            class: LimitClass::Capacity,
        };
        assert_eq!(
            scanners.kind(),
            ErrorKind::Busy,
            "a capacity limit may clear"
        );
        assert_eq!(
            ServiceError::TableDisabled("t".into()).kind(),
            ErrorKind::FailedPrecondition
        );
    }
}
