//! The service layer's one error type. Network adapters map each kind to their protocol's
//! error (Thrift IOError / IllegalArgument / AlreadyExists, gRPC status codes, HTTP status).

/// What can go wrong in a service call.
#[derive(Debug, thiserror::Error)]
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
    },
    #[error("catalog is corrupt: {0}")]
    CatalogCorrupt(String),
    #[error(transparent)]
    Engine(#[from] strata_engine::Error),
}

/// The service layer's result type.
pub type Result<T> = std::result::Result<T, ServiceError>;
