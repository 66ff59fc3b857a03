//! The Thrift1 connection: volo's generated `Hbase` client speaking plain buffered (unframed)
//! binary protocol, which both HBase's Thrift server and Strata's accept, driven from the
//! synchronous shell through a private tokio runtime.

use std::future::Future;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use strata_thrift::gen::volo_gen::hbase::*;
use volo_thrift::codec::default::DefaultMakeCodec;
use volo_thrift::{ApplicationExceptionKind, ClientError, MaybeException};

use crate::error::{Result, ShellError};

/// A connection to one Thrift1 server.
pub struct Client {
    runtime: tokio::runtime::Runtime,
    hbase: HbaseClient,
    address: String,
}

impl Client {
    /// Resolves `host:port` and builds a client; the first call opens the connection.
    pub fn connect(host: &str, port: u16, timeout: Duration) -> Result<Client> {
        let address = format!("{host}:{port}");
        let failed = |message: String| ShellError::Connection {
            address: address.clone(),
            message,
        };
        let socket: SocketAddr = (host, port)
            .to_socket_addrs()
            .map_err(|e| failed(e.to_string()))?
            .next()
            .ok_or_else(|| failed("the host name resolves to no address".to_string()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let hbase = {
            // volo's builder registers with the runtime it is built in.
            let _guard = runtime.enter();
            HbaseClientBuilder::new("hbase")
                .address(socket)
                .make_codec(DefaultMakeCodec::buffered())
                .connect_timeout(Some(timeout))
                .rpc_timeout(None)
                .build()
        };
        Ok(Client {
            runtime,
            hbase,
            address,
        })
    }

    /// The generated client, for building a call's future.
    pub fn hbase(&self) -> &HbaseClient {
        &self.hbase
    }

    /// Runs one call to completion. `method` names it for the "not supported" message.
    pub fn call<T, E: Explain>(
        &self,
        method: &str,
        call: impl Future<Output = std::result::Result<MaybeException<T, E>, ClientError>>,
    ) -> Result<T> {
        match self.runtime.block_on(call) {
            Ok(MaybeException::Ok(value)) => Ok(value),
            Ok(MaybeException::Exception(e)) => Err(ShellError::Server(e.explain())),
            Err(e) => Err(self.client_error(method, e)),
        }
    }

    /// Runs a call that declares no exceptions.
    pub fn call_plain<T>(
        &self,
        method: &str,
        call: impl Future<Output = std::result::Result<T, ClientError>>,
    ) -> Result<T> {
        self.runtime
            .block_on(call)
            .map_err(|e| self.client_error(method, e))
    }

    fn client_error(&self, method: &str, error: ClientError) -> ShellError {
        match error {
            ClientError::Application(e) if e.kind() == ApplicationExceptionKind::UNKNOWN_METHOD => {
                ShellError::Unsupported(method.to_string())
            }
            ClientError::Application(e) => ShellError::Server(e.message().to_string()),
            ClientError::Transport(e) => ShellError::Connection {
                address: self.address.clone(),
                message: e.message().to_string(),
            },
            other => ShellError::Server(other.to_string()),
        }
    }
}

/// The message of a method's declared exception.
pub trait Explain {
    fn explain(&self) -> String;
}

macro_rules! explain {
    ($($name:ident [$($variant:ident),*]),* $(,)?) => {$(
        impl Explain for $name {
            fn explain(&self) -> String {
                match self {
                    $(Self::$variant(e) => e.message.as_deref().unwrap_or("").to_string(),)*
                }
            }
        }
    )*};
}

explain!(
    HbaseEnableTableException[Io],
    HbaseDisableTableException[Io],
    HbaseIsTableEnabledException[Io],
    HbaseCompactException[Io],
    HbaseMajorCompactException[Io],
    HbaseGetTableNamesException[Io],
    HbaseGetColumnDescriptorsException[Io],
    HbaseGetTableRegionsException[Io],
    HbaseCreateTableException[Io, Ia, Exist],
    HbaseDeleteTableException[Io],
    HbaseGetVerTsException[Io],
    HbaseGetRowWithColumnsTsException[Io],
    HbaseMutateRowException[Io, Ia],
    HbaseMutateRowTsException[Io, Ia],
    HbaseAtomicIncrementException[Io, Ia],
    HbaseDeleteAllException[Io],
    HbaseDeleteAllTsException[Io],
    HbaseDeleteAllRowException[Io],
    HbaseDeleteAllRowTsException[Io],
    HbaseScannerOpenWithScanException[Io],
    HbaseScannerGetListException[Io, Ia],
    HbaseScannerCloseException[Io, Ia],
    HbaseAppendException[Io],
    HbaseStrataListNamespacesException[Io, Ia],
    HbaseStrataGrantException[Io, Ia],
    HbaseStrataRevokeException[Io, Ia],
    HbaseStrataUserPermissionsException[Io, Ia],
    HbaseStrataCreateNamespaceException[Io, Ia],
    HbaseStrataDeleteNamespaceException[Io, Ia],
    HbaseStrataCreateTableException[Io, Ia],
    HbaseStrataDescribeTableException[Io, Ia],
    HbaseStrataGetTableDurabilityException[Io, Ia],
    HbaseStrataSetTableDurabilityException[Io, Ia],
    HbaseStrataAlterFamilyException[Io, Ia],
    HbaseStrataDeleteFamilyException[Io, Ia],
    HbaseStrataTruncateTableException[Io, Ia],
    HbaseStrataFlushException[Io, Ia],
    HbaseStrataSplitException[Io, Ia],
    HbaseStrataMergeRegionsException[Io, Ia],
    HbaseStrataStatusException[Io, Ia],
    HbaseStrataMoveRegionException[Io, Ia],
    HbaseStrataBalanceException[Io, Ia],
    HbaseStrataBalanceSwitchException[Io, Ia],
    HbaseStrataDecommissionException[Io, Ia],
    HbaseStrataAssignException[Io, Ia],
    HbaseStrataUnassignException[Io, Ia],
    HbaseStrataListDecommissionedException[Io, Ia],
    HbaseStrataSnapshotException[Io, Ia],
    HbaseStrataListSnapshotsException[Io, Ia],
    HbaseStrataDeleteSnapshotException[Io, Ia],
    HbaseStrataCloneSnapshotException[Io, Ia],
    HbaseStrataRestoreSnapshotException[Io, Ia],
);
