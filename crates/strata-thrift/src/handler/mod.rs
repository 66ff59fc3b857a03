//! The generated `Hbase` trait, implemented by unwrapping arguments and calling `ops`. The
//! methods live by family, mirroring `ops/`: `admin`, `reads`, `writes`, `scans` and
//! `strata` (Strata's extensions); the trait implementation below only forwards to them.
//!
//! Service calls block (engine I/O, fsync), so each runs on tokio's blocking pool. An argument
//! the client left out reads as empty (or, for timestamps, "latest"), which is how HBase treats
//! a null in most places; the operations then reject what is invalid.

mod admin;
mod reads;
mod scans;
mod strata;
mod writes;

use std::sync::Arc;

use bytes::Bytes;
use pilota::{AHashMap, FastStr};
use strata_engine::LATEST_TIMESTAMP;
use strata_server::Service;
use volo_thrift::{MaybeException, ServerError};

use crate::failure::{reply, CallResult, Declared, Failure};
use crate::gen::volo_gen::hbase::{self as t, *};

type Reply<T, E> = Result<MaybeException<T, E>, ServerError>;
type Attributes = Option<AHashMap<Text, Text>>;

/// The Thrift1 handler: one per server, shared by every connection. Scanners live in the
/// service's registry, so the handler holds no state of its own beyond the port.
#[derive(Clone)]
pub struct Handler {
    service: Arc<Service>,
    /// The port this server listens on, reported as every region's server port.
    port: u16,
}

impl Handler {
    pub fn new(service: Arc<Service>, port: u16) -> Handler {
        Handler { service, port }
    }

    /// Runs `f` on the blocking pool and fits its outcome to the method's exceptions.
    async fn run<T, E, F>(&self, f: F) -> Reply<T, E>
    where
        T: Send + 'static,
        E: Declared,
        F: FnOnce(&Service) -> CallResult<T> + Send + 'static,
    {
        let service = Arc::clone(&self.service);
        let result = tokio::task::spawn_blocking(move || f(&service))
            .await
            .unwrap_or_else(|e| Err(Failure::io(format!("internal error: {e}"))));
        reply(result)
    }

    /// Runs a one-row read on the calling task when its region is open here, else (its
    /// owner is a peer, or it waits for a region change or the catalog) on the blocking
    /// pool through [`Handler::run`]: a network thread never waits on another server
    /// (`strata_server::inline`).
    ///
    /// Why: a point read is answered from the memstore or block cache in microseconds (one
    /// block read on a miss), while the hop to the blocking pool and back costs two thread
    /// wake-ups, most of a cached read's time. Everything else (writes that wait for the
    /// WAL, scans, admin calls) still goes through [`Handler::run`].
    async fn run_point_read<T, E, F>(&self, f: F) -> Reply<T, E>
    where
        T: Send + 'static,
        E: Declared,
        F: FnOnce(&Service) -> CallResult<T> + Clone + Send + 'static,
    {
        let here = f.clone();
        match strata_server::inline::here_only(|| here(&self.service)) {
            Some(result) => reply(result),
            None => self.run(f).await,
        }
    }
}

/// A text argument's bytes; a missing one reads as empty.
fn text_or_empty(text: Option<Text>) -> Bytes {
    text.map(|t| t.0).unwrap_or_default()
}

/// A binary argument's bytes; a missing one reads as empty.
fn binary_or_empty(binary: Option<t::Bytes>) -> Bytes {
    binary.map(|b| b.0).unwrap_or_default()
}

/// A list of text arguments as bytes, keeping a missing list missing ("every column").
fn text_list(texts: Option<Vec<Text>>) -> Option<Vec<Bytes>> {
    texts.map(|l| l.into_iter().map(|t| t.0).collect())
}

/// A timestamp argument; a missing one means the latest.
fn timestamp_or_latest(timestamp: Option<i64>) -> i64 {
    timestamp.unwrap_or(LATEST_TIMESTAMP)
}

/// Implements `Hbase` for [`Handler`] by forwarding each method, with its arguments, to the
/// function of the same name in its family's module. (A trait implementation cannot be
/// split across files; this keeps the one block down to the method list.)
macro_rules! forward_to_families {
    ($($family:ident::$method:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*) => {
        impl Hbase for Handler {
            $(
                async fn $method(&self, $($arg: $ty),*) -> $ret {
                    $family::$method(self, $($arg),*).await
                }
            )*
        }
    };
}

forward_to_families! {
    // Table administration and server information.
    admin::enable_table(table_name: Option<t::Bytes>) -> Reply<(), HbaseEnableTableException>;
    admin::disable_table(table_name: Option<t::Bytes>) -> Reply<(), HbaseDisableTableException>;
    admin::is_table_enabled(
        table_name: Option<t::Bytes>,
    ) -> Reply<bool, HbaseIsTableEnabledException>;
    admin::compact(name: Option<t::Bytes>) -> Reply<(), HbaseCompactException>;
    admin::major_compact(name: Option<t::Bytes>) -> Reply<(), HbaseMajorCompactException>;
    admin::get_table_names() -> Reply<Vec<Text>, HbaseGetTableNamesException>;
    admin::get_table_names_with_is_table_enabled(
    ) -> Reply<AHashMap<Text, bool>, HbaseGetTableNamesWithIsTableEnabledException>;
    admin::get_column_descriptors(
        table_name: Option<Text>,
    ) -> Reply<AHashMap<Text, ColumnDescriptor>, HbaseGetColumnDescriptorsException>;
    admin::get_table_regions(
        table_name: Option<Text>,
    ) -> Reply<Vec<TRegionInfo>, HbaseGetTableRegionsException>;
    admin::create_table(
        table_name: Option<Text>, families: Option<Vec<ColumnDescriptor>>,
    ) -> Reply<(), HbaseCreateTableException>;
    admin::delete_table(table_name: Option<Text>) -> Reply<(), HbaseDeleteTableException>;
    admin::get_region_info(row: Option<Text>) -> Reply<TRegionInfo, HbaseGetRegionInfoException>;
    admin::get_thrift_server_type() -> Result<TThriftServerType, ServerError>;
    admin::get_cluster_id() -> Result<FastStr, ServerError>;
    admin::grant(info: Option<TAccessControlEntity>) -> Reply<bool, HbaseGrantException>;
    admin::revoke(info: Option<TAccessControlEntity>) -> Reply<bool, HbaseRevokeException>;

    // Reads of cells and rows.
    reads::get(
        table_name: Option<Text>, row: Option<Text>, column: Option<Text>, _a: Attributes,
    ) -> Reply<Vec<TCell>, HbaseGetException>;
    reads::get_ver(
        table_name: Option<Text>, row: Option<Text>, column: Option<Text>, n: Option<i32>,
        _a: Attributes,
    ) -> Reply<Vec<TCell>, HbaseGetVerException>;
    reads::get_ver_ts(
        table_name: Option<Text>, row: Option<Text>, column: Option<Text>, timestamp: Option<i64>,
        n: Option<i32>, _a: Attributes,
    ) -> Reply<Vec<TCell>, HbaseGetVerTsException>;
    reads::get_row(
        table_name: Option<Text>, row: Option<Text>, _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowException>;
    reads::get_row_with_columns(
        table_name: Option<Text>, row: Option<Text>, columns: Option<Vec<Text>>, _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowWithColumnsException>;
    reads::get_row_ts(
        table_name: Option<Text>, row: Option<Text>, timestamp: Option<i64>, _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowTsException>;
    reads::get_row_with_columns_ts(
        table_name: Option<Text>, row: Option<Text>, columns: Option<Vec<Text>>,
        timestamp: Option<i64>, _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowWithColumnsTsException>;
    reads::get_rows(
        table_name: Option<Text>, rows: Option<Vec<Text>>, _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowsException>;
    reads::get_rows_with_columns(
        table_name: Option<Text>, rows: Option<Vec<Text>>, columns: Option<Vec<Text>>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowsWithColumnsException>;
    reads::get_rows_ts(
        table_name: Option<Text>, rows: Option<Vec<Text>>, timestamp: Option<i64>, _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowsTsException>;
    reads::get_rows_with_columns_ts(
        table_name: Option<Text>, rows: Option<Vec<Text>>, columns: Option<Vec<Text>>,
        timestamp: Option<i64>, _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowsWithColumnsTsException>;
    reads::get_row_or_before(
        _table_name: Option<Text>, _row: Option<Text>, _family: Option<Text>,
    ) -> Reply<Vec<TCell>, HbaseGetRowOrBeforeException>;

    // Mutations, deletes, increments, appends, checkAndPut.
    writes::mutate_row(
        table_name: Option<Text>, row: Option<Text>, mutations: Option<Vec<Mutation>>,
        _a: Attributes,
    ) -> Reply<(), HbaseMutateRowException>;
    writes::mutate_row_ts(
        table_name: Option<Text>, row: Option<Text>, mutations: Option<Vec<Mutation>>,
        timestamp: Option<i64>, _a: Attributes,
    ) -> Reply<(), HbaseMutateRowTsException>;
    writes::mutate_rows(
        table_name: Option<Text>, batches: Option<Vec<BatchMutation>>, _a: Attributes,
    ) -> Reply<(), HbaseMutateRowsException>;
    writes::mutate_rows_ts(
        table_name: Option<Text>, batches: Option<Vec<BatchMutation>>, timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<(), HbaseMutateRowsTsException>;
    writes::atomic_increment(
        table_name: Option<Text>, row: Option<Text>, column: Option<Text>, value: Option<i64>,
    ) -> Reply<i64, HbaseAtomicIncrementException>;
    writes::delete_all(
        table_name: Option<Text>, row: Option<Text>, column: Option<Text>, _a: Attributes,
    ) -> Reply<(), HbaseDeleteAllException>;
    writes::delete_all_ts(
        table_name: Option<Text>, row: Option<Text>, column: Option<Text>, timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<(), HbaseDeleteAllTsException>;
    writes::delete_all_row(
        table_name: Option<Text>, row: Option<Text>, _a: Attributes,
    ) -> Reply<(), HbaseDeleteAllRowException>;
    writes::increment(inc: Option<TIncrement>) -> Reply<(), HbaseIncrementException>;
    writes::increment_rows(incs: Option<Vec<TIncrement>>) -> Reply<(), HbaseIncrementRowsException>;
    writes::delete_all_row_ts(
        table_name: Option<Text>, row: Option<Text>, timestamp: Option<i64>, _a: Attributes,
    ) -> Reply<(), HbaseDeleteAllRowTsException>;
    writes::append(append: Option<TAppend>) -> Reply<Vec<TCell>, HbaseAppendException>;
    writes::check_and_put(
        table_name: Option<Text>, row: Option<Text>, column: Option<Text>, value: Option<Text>,
        mput: Option<Mutation>, _a: Attributes,
    ) -> Reply<bool, HbaseCheckAndPutException>;

    // Scanners.
    scans::scanner_open_with_scan(
        table_name: Option<Text>, scan: Option<TScan>, _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenWithScanException>;
    scans::scanner_open(
        table_name: Option<Text>, start_row: Option<Text>, columns: Option<Vec<Text>>,
        _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenException>;
    scans::scanner_open_with_stop(
        table_name: Option<Text>, start_row: Option<Text>, stop_row: Option<Text>,
        columns: Option<Vec<Text>>, _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenWithStopException>;
    scans::scanner_open_with_prefix(
        table_name: Option<Text>, prefix: Option<Text>, columns: Option<Vec<Text>>, _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenWithPrefixException>;
    scans::scanner_open_ts(
        table_name: Option<Text>, start_row: Option<Text>, columns: Option<Vec<Text>>,
        timestamp: Option<i64>, _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenTsException>;
    scans::scanner_open_with_stop_ts(
        table_name: Option<Text>, start_row: Option<Text>, stop_row: Option<Text>,
        columns: Option<Vec<Text>>, timestamp: Option<i64>, _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenWithStopTsException>;
    scans::scanner_get(id: Option<ScannerId>) -> Reply<Vec<TRowResult>, HbaseScannerGetException>;
    scans::scanner_get_list(
        id: Option<ScannerId>, n: Option<i32>,
    ) -> Reply<Vec<TRowResult>, HbaseScannerGetListException>;
    scans::scanner_close(id: Option<ScannerId>) -> Reply<(), HbaseScannerCloseException>;

    // Strata's extensions.
    strata::strata_list_namespaces() -> Reply<Vec<FastStr>, HbaseStrataListNamespacesException>;
    strata::strata_grant(
        permission: Option<TStrataPermission>, merge: Option<bool>,
    ) -> Reply<(), HbaseStrataGrantException>;
    strata::strata_revoke(
        permission: Option<TStrataPermission>,
    ) -> Reply<(), HbaseStrataRevokeException>;
    strata::strata_user_permissions(
        scope: Option<TStrataPermission>,
    ) -> Reply<Vec<TStrataPermission>, HbaseStrataUserPermissionsException>;
    strata::strata_create_namespace(
        name: Option<FastStr>,
    ) -> Reply<(), HbaseStrataCreateNamespaceException>;
    strata::strata_delete_namespace(
        name: Option<FastStr>,
    ) -> Reply<(), HbaseStrataDeleteNamespaceException>;
    strata::strata_create_table(
        table_name: Option<Text>, families: Option<Vec<TStrataFamily>>,
        split_keys: Option<Vec<Text>>, durability: Option<FastStr>,
    ) -> Reply<(), HbaseStrataCreateTableException>;
    strata::strata_get_table_durability(
        table_name: Option<Text>,
    ) -> Reply<FastStr, HbaseStrataGetTableDurabilityException>;
    strata::strata_set_table_durability(
        table_name: Option<Text>, durability: Option<FastStr>,
    ) -> Reply<(), HbaseStrataSetTableDurabilityException>;
    strata::strata_describe_table(
        table_name: Option<Text>,
    ) -> Reply<Vec<TStrataFamily>, HbaseStrataDescribeTableException>;
    strata::strata_alter_family(
        table_name: Option<Text>, family: Option<TStrataFamily>,
    ) -> Reply<(), HbaseStrataAlterFamilyException>;
    strata::strata_delete_family(
        table_name: Option<Text>, family: Option<Text>,
    ) -> Reply<(), HbaseStrataDeleteFamilyException>;
    strata::strata_truncate_table(
        table_name: Option<Text>, preserve_splits: Option<bool>,
    ) -> Reply<(), HbaseStrataTruncateTableException>;
    strata::strata_flush(name: Option<Text>) -> Reply<(), HbaseStrataFlushException>;
    strata::strata_split(
        name: Option<Text>, point: Option<Text>,
    ) -> Reply<(), HbaseStrataSplitException>;
    strata::strata_merge_regions(
        a: Option<Text>, b_name: Option<Text>,
    ) -> Reply<(), HbaseStrataMergeRegionsException>;
    strata::strata_status() -> Reply<TStrataStatus, HbaseStrataStatusException>;
    strata::strata_move_region(
        region_name: Option<Text>, server: Option<FastStr>,
    ) -> Reply<FastStr, HbaseStrataMoveRegionException>;
    strata::strata_balance() -> Reply<i32, HbaseStrataBalanceException>;
    strata::strata_assign(region_name: Option<Text>) -> Reply<FastStr, HbaseStrataAssignException>;
    strata::strata_unassign(region_name: Option<Text>) -> Reply<(), HbaseStrataUnassignException>;
    strata::strata_balance_switch(on: Option<bool>) -> Reply<bool, HbaseStrataBalanceSwitchException>;
    strata::strata_decommission(
        server: Option<FastStr>, on: Option<bool>,
    ) -> Reply<i32, HbaseStrataDecommissionException>;
    strata::strata_list_decommissioned() -> Reply<Vec<FastStr>, HbaseStrataListDecommissionedException>;
    strata::strata_snapshot(
        table_name: Option<Text>, snapshot_name: Option<FastStr>,
    ) -> Reply<(), HbaseStrataSnapshotException>;
    strata::strata_list_snapshots() -> Reply<Vec<TStrataSnapshot>, HbaseStrataListSnapshotsException>;
    strata::strata_delete_snapshot(
        snapshot_name: Option<FastStr>,
    ) -> Reply<(), HbaseStrataDeleteSnapshotException>;
    strata::strata_clone_snapshot(
        snapshot_name: Option<FastStr>, table_name: Option<Text>,
    ) -> Reply<(), HbaseStrataCloneSnapshotException>;
    strata::strata_restore_snapshot(
        snapshot_name: Option<FastStr>,
    ) -> Reply<(), HbaseStrataRestoreSnapshotException>;
}
