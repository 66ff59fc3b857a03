//! The embedded API's one error type.

use strata_server::ServiceError;

/// What can go wrong in a call of the embedded API.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Stored bytes failed a checksum or could not be decoded (data files, the WAL or the
    /// catalog). Never returned as data: stop and restore or repair.
    #[error("corruption: {0}")]
    Corruption(#[source] ServiceError),
    /// The request is invalid (a bad name, family, timestamp, row key or argument).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A filter-language string that does not parse.
    #[error("invalid filter {filter:?}: {reason}")]
    InvalidFilter {
        /// The filter string as given.
        filter: String,
        /// What is wrong with it, and where.
        reason: String,
    },
    /// The database was closed; handles that outlive `Db::close` get this.
    #[error("the database is closed")]
    Closed,
    /// An async call's blocking task panicked or was cancelled.
    #[error("background task failed: {0}")]
    Background(String),
    /// Every other failure the service layer reports (missing table or namespace, a disabled
    /// table, I/O errors, a busy engine...). Match on the inner [`ServiceError`] for details.
    #[error(transparent)]
    Service(ServiceError),
}

/// The embedded API's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<ServiceError> for Error {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::CatalogCorrupt(_) => Error::Corruption(e),
            ServiceError::Engine(ref inner) if inner.is_corruption() => Error::Corruption(e),
            ServiceError::InvalidArgument(msg) | ServiceError::IllegalName(msg) => {
                Error::InvalidArgument(msg)
            }
            ServiceError::Engine(strata_engine::Error::InvalidArgument(msg)) => {
                Error::InvalidArgument(msg)
            }
            other => Error::Service(other),
        }
    }
}

impl Error {
    /// True when a table, namespace or column family named in the call does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            Error::Service(
                ServiceError::TableNotFound(_)
                    | ServiceError::NamespaceNotFound(_)
                    | ServiceError::FamilyNotFound { .. }
            )
        )
    }

    /// True for [`Error::Corruption`].
    pub fn is_corruption(&self) -> bool {
        matches!(self, Error::Corruption(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn engine_corruption_becomes_its_own_kind() {
        let engine = strata_engine::Error::corruption(PathBuf::from("f.sst"), 7, "bad crc");
        let e = Error::from(ServiceError::Engine(engine));
        assert!(e.is_corruption(), "{e}");
        assert!(e.to_string().contains("bad crc"));
        let catalog = Error::from(ServiceError::CatalogCorrupt("x".into()));
        assert!(catalog.is_corruption());
    }

    #[test]
    fn invalid_arguments_keep_their_message() {
        let e = Error::from(ServiceError::IllegalName("illegal table name".into()));
        assert!(matches!(e, Error::InvalidArgument(ref m) if m.contains("illegal")));
        let e = Error::from(ServiceError::TableNotFound("t".into()));
        assert!(e.is_not_found());
    }
}
