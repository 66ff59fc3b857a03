//! How the extension methods report failures: each declares IOError and IllegalArgument, so
//! every failure reaches the shell as a message (an existing name is an IOError here).

use pilota::FastStr;

use crate::failure::{Declared, Failure};
use crate::gen::volo_gen::hbase::{IllegalArgument, IoError};

fn io(message: &str, can_retry: bool) -> IoError {
    IoError {
        message: Some(FastStr::new(message)),
        can_retry: Some(can_retry),
    }
}

fn illegal(message: &str) -> IllegalArgument {
    IllegalArgument {
        message: Some(FastStr::new(message)),
    }
}

macro_rules! declared_io_ia {
    ($($name:ident),* $(,)?) => {$(
        impl Declared for crate::gen::volo_gen::hbase::$name {
            fn declared(failure: Failure) -> Result<Self, Failure> {
                Ok(match failure {
                    Failure::IllegalArgument(m) | Failure::Internal(m) => Self::Ia(illegal(&m)),
                    Failure::Io(m) | Failure::AlreadyExists(m) => Self::Io(io(&m, false)),
                    Failure::Retryable(m) => Self::Io(io(&m, true)),
                })
            }
        }
    )*};
}

declared_io_ia!(
    HbaseStrataListNamespacesException,
    HbaseStrataGrantException,
    HbaseStrataRevokeException,
    HbaseStrataUserPermissionsException,
    HbaseStrataCreateNamespaceException,
    HbaseStrataDeleteNamespaceException,
    HbaseStrataCreateTableException,
    HbaseStrataDescribeTableException,
    HbaseStrataGetTableDurabilityException,
    HbaseStrataSetTableDurabilityException,
    HbaseStrataAlterFamilyException,
    HbaseStrataDeleteFamilyException,
    HbaseStrataTruncateTableException,
    HbaseStrataFlushException,
    HbaseStrataSplitException,
    HbaseStrataMergeRegionsException,
    HbaseStrataStatusException,
    HbaseStrataMoveRegionException,
    HbaseStrataBalanceException,
    HbaseStrataBalanceSwitchException,
    HbaseStrataDecommissionException,
    HbaseStrataAssignException,
    HbaseStrataUnassignException,
    HbaseStrataListDecommissionedException,
    HbaseStrataSnapshotException,
    HbaseStrataListSnapshotsException,
    HbaseStrataDeleteSnapshotException,
    HbaseStrataCloneSnapshotException,
    HbaseStrataRestoreSnapshotException,
);
