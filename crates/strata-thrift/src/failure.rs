//! How a failed call reaches the client.
//!
//! Every Thrift method declares which exceptions it may throw, and each gets its own generated
//! exception enum. The adapter reports failures as a [`Failure`]; [`reply`] turns it into the
//! method's declared exception when there is one, and into a TApplicationException otherwise,
//! which is what HBase's server does with an argument error in a method that does not declare
//! IllegalArgument (an empty row key in `get`, for instance).

use pilota::FastStr;
use volo_thrift::{ApplicationException, ApplicationExceptionKind, MaybeException, ServerError};

use crate::gen::volo_gen::hbase::{AlreadyExists, IllegalArgument, IoError};

/// Why a call failed, before it is fitted to the method's declared exceptions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A server-side problem: a missing table or family, an engine error.
    Io(String),
    /// A server-side condition that may clear (memory, a region being split): an IOError
    /// with `canRetry` set.
    Retryable(String),
    /// The request itself is wrong.
    IllegalArgument(String),
    /// createTable on a table that exists.
    AlreadyExists(String),
    /// Sent as a TApplicationException (INTERNAL_ERROR) whatever the method declares: what
    /// HBase's server does when a request fails its argument checks (an empty or oversized
    /// row key, a negative timestamp, a put to a bare family, an illegal table name).
    Internal(String),
}

impl Failure {
    pub fn io(message: impl Into<String>) -> Failure {
        Failure::Io(message.into())
    }

    pub fn illegal(message: impl Into<String>) -> Failure {
        Failure::IllegalArgument(message.into())
    }

    pub fn message(&self) -> &str {
        match self {
            Failure::Io(m)
            | Failure::Retryable(m)
            | Failure::IllegalArgument(m)
            | Failure::AlreadyExists(m)
            | Failure::Internal(m) => m,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

pub type CallResult<T> = Result<T, Failure>;

fn io_error(message: &str, can_retry: bool) -> IoError {
    IoError {
        message: Some(FastStr::new(message)),
        can_retry: Some(can_retry),
    }
}

fn illegal_argument(message: &str) -> IllegalArgument {
    IllegalArgument {
        message: Some(FastStr::new(message)),
    }
}

fn already_exists(message: &str) -> AlreadyExists {
    AlreadyExists {
        message: Some(FastStr::new(message)),
    }
}

/// A method's generated exception enum.
pub trait Declared: Sized {
    /// The declared exception for `failure`, or the failure back if the method does not declare
    /// a matching exception.
    fn declared(failure: Failure) -> Result<Self, Failure>;
}

/// Fits a call's outcome to what the method may return.
pub fn reply<T, E: Declared>(result: CallResult<T>) -> Result<MaybeException<T, E>, ServerError> {
    match result {
        Ok(value) => Ok(MaybeException::Ok(value)),
        Err(failure) => match E::declared(failure) {
            Ok(exception) => Ok(MaybeException::Exception(exception)),
            Err(failure) => {
                tracing::debug!(%failure, "undeclared failure sent as TApplicationException");
                Err(ServerError::Application(ApplicationException::new(
                    ApplicationExceptionKind::INTERNAL_ERROR,
                    failure.message().to_string(),
                )))
            }
        },
    }
}

/// Implements [`Declared`] for exception enums: `io` only, `io, ia`, or `io, ia, exist`.
macro_rules! declared {
    (io: $($name:ident),* $(,)?) => {$(
        impl Declared for crate::gen::volo_gen::hbase::$name {
            fn declared(failure: Failure) -> Result<Self, Failure> {
                match failure {
                    Failure::Io(m) => Ok(Self::Io(io_error(&m, false))),
                    Failure::Retryable(m) => Ok(Self::Io(io_error(&m, true))),
                    other => Err(other),
                }
            }
        }
    )*};
    (io_ia: $($name:ident),* $(,)?) => {$(
        impl Declared for crate::gen::volo_gen::hbase::$name {
            fn declared(failure: Failure) -> Result<Self, Failure> {
                match failure {
                    Failure::Io(m) => Ok(Self::Io(io_error(&m, false))),
                    Failure::Retryable(m) => Ok(Self::Io(io_error(&m, true))),
                    Failure::IllegalArgument(m) => Ok(Self::Ia(illegal_argument(&m))),
                    other => Err(other),
                }
            }
        }
    )*};
}

declared!(io:
    HbaseEnableTableException, HbaseDisableTableException, HbaseIsTableEnabledException,
    HbaseCompactException, HbaseMajorCompactException, HbaseGetTableNamesException,
    HbaseGetTableNamesWithIsTableEnabledException, HbaseGetColumnDescriptorsException,
    HbaseGetTableRegionsException, HbaseDeleteTableException, HbaseGetException,
    HbaseGetVerException, HbaseGetVerTsException, HbaseGetRowException,
    HbaseGetRowWithColumnsException, HbaseGetRowTsException, HbaseGetRowWithColumnsTsException,
    HbaseGetRowsException, HbaseGetRowsWithColumnsException, HbaseGetRowsTsException,
    HbaseGetRowsWithColumnsTsException, HbaseDeleteAllException, HbaseDeleteAllTsException,
    HbaseDeleteAllRowException, HbaseDeleteAllRowTsException, HbaseIncrementException,
    HbaseIncrementRowsException, HbaseScannerOpenWithScanException, HbaseScannerOpenException,
    HbaseScannerOpenWithStopException, HbaseScannerOpenWithPrefixException,
    HbaseScannerOpenTsException, HbaseScannerOpenWithStopTsException,
    HbaseGetRegionInfoException, HbaseAppendException, HbaseGetRowOrBeforeException, HbaseGrantException, HbaseRevokeException,
);

declared!(io_ia:
    HbaseMutateRowException, HbaseMutateRowTsException, HbaseMutateRowsException,
    HbaseMutateRowsTsException, HbaseAtomicIncrementException, HbaseScannerGetException,
    HbaseScannerGetListException, HbaseScannerCloseException, HbaseCheckAndPutException,
);

impl Declared for crate::gen::volo_gen::hbase::HbaseCreateTableException {
    fn declared(failure: Failure) -> Result<Self, Failure> {
        Ok(match failure {
            Failure::Io(m) => Self::Io(io_error(&m, false)),
            Failure::Retryable(m) => Self::Io(io_error(&m, true)),
            Failure::IllegalArgument(m) => Self::Ia(illegal_argument(&m)),
            Failure::AlreadyExists(m) => Self::Exist(already_exists(&m)),
            internal @ Failure::Internal(_) => return Err(internal),
        })
    }
}

/// Maps an engine error by its kind: argument errors (row keys, timestamps) are what HBase
/// reports as a TApplicationException; the rest are I/O, retryable when nothing was applied.
pub fn from_engine(error: strata_engine::Error) -> Failure {
    match (error.kind(), error) {
        (_, strata_engine::Error::InvalidArgument(m)) => Failure::Internal(m),
        (kind, other) => io_failure(other.to_string(), kind.is_retryable()),
    }
}

fn io_failure(message: String, retryable: bool) -> Failure {
    if retryable {
        Failure::Retryable(message)
    } else {
        Failure::Io(message)
    }
}

/// Maps a service error, by its kind, to what HBase's Thrift1 server reports for the same
/// condition.
pub fn from_service(error: strata_server::ServiceError) -> Failure {
    use strata_server::{ErrorKind, ServiceError as E};
    let kind = error.kind();
    match error {
        E::TableExists(t) => Failure::AlreadyExists(format!("table name already in use: {t}")),
        E::IllegalName(m) => Failure::Internal(m),
        E::ScannerNotFound(id) => {
            Failure::IllegalArgument(format!("scanner ID {id} is invalid (closed or expired)"))
        }
        E::Engine(e) => from_engine(e),
        // HBase's Thrift server passes the exception's class and text on in an IOError.
        E::AccessDenied(m) => Failure::Io(format!(
            "org.apache.hadoop.hbase.security.AccessDeniedException: {m}"
        )),
        // HBase refuses an oversized cell with an IllegalArgumentException ("KeyValue size
        // too large"); running out of scanners is the server's condition, an IOError.
        other if kind == ErrorKind::InvalidArgument => Failure::IllegalArgument(other.to_string()),
        other => io_failure(other.to_string(), kind.is_retryable()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::volo_gen::hbase::{
        HbaseCreateTableException, HbaseGetException, HbaseMutateRowException,
    };

    #[test]
    fn failures_fit_the_declared_exceptions() {
        let r: Result<MaybeException<(), HbaseGetException>, _> =
            reply(Err(Failure::io("no table")));
        assert!(matches!(
            r,
            Ok(MaybeException::Exception(HbaseGetException::Io(_)))
        ));

        // get does not declare IllegalArgument: HBase answers with a TApplicationException.
        let r: Result<MaybeException<(), HbaseGetException>, _> =
            reply(Err(Failure::illegal("empty row")));
        assert!(matches!(r, Err(ServerError::Application(_))));

        let r: Result<MaybeException<(), HbaseMutateRowException>, _> =
            reply(Err(Failure::illegal("bad column")));
        assert!(matches!(
            r,
            Ok(MaybeException::Exception(HbaseMutateRowException::Ia(_)))
        ));

        let r: Result<MaybeException<(), HbaseCreateTableException>, _> =
            reply(Err(Failure::AlreadyExists("t".into())));
        assert!(matches!(
            r,
            Ok(MaybeException::Exception(HbaseCreateTableException::Exist(
                _
            )))
        ));
    }

    #[test]
    fn retryable_kinds_are_io_errors_that_say_so() {
        use strata_server::ServiceError;
        let busy = from_service(ServiceError::Engine(strata_engine::Error::TooBusy(
            "memstores full".into(),
        )));
        let sealed = from_service(ServiceError::Engine(strata_engine::Error::RegionSealed {
            region: 7,
        }));
        let missing = from_service(ServiceError::TableNotFound("t".into()));
        for (failure, retry) in [(busy, true), (sealed, true), (missing, false)] {
            let r: Result<MaybeException<(), HbaseGetException>, _> = reply(Err(failure));
            let Ok(MaybeException::Exception(HbaseGetException::Io(e))) = r else {
                panic!("not an IOError");
            };
            assert_eq!(e.can_retry, Some(retry), "{:?}", e.message);
        }
    }
}
