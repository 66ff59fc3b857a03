//! The generated `Hbase` trait, implemented by unwrapping arguments and calling `ops`.
//!
//! Service calls block (engine I/O, fsync), so each runs on tokio's blocking pool. An argument
//! the client left out reads as empty (or, for timestamps, "latest"), which is how HBase treats
//! a null in most places; the operations then reject what is invalid.

use std::sync::Arc;

use bytes::Bytes;
use pilota::{AHashMap, FastStr};
use strata_engine::LATEST_TIMESTAMP;
use strata_server::Service;
use volo_thrift::{MaybeException, ServerError};

use crate::failure::{reply, CallResult, Declared, Failure};
use crate::gen::volo_gen::hbase::{self as t, *};
use crate::ops::scans::{prefix_end, ScanRequest, Scanners};
use crate::ops::strata as ext;
use crate::ops::{admin, reads, writes};

type Reply<T, E> = Result<MaybeException<T, E>, ServerError>;
type Attributes = Option<AHashMap<Text, Text>>;

/// The Thrift1 handler: one per server, shared by every connection.
#[derive(Clone)]
pub struct Handler {
    service: Arc<Service>,
    scanners: Arc<Scanners>,
    /// The port this server listens on, reported as every region's server port.
    port: u16,
}

impl Handler {
    /// `max_scanners_per_connection` caps the scanners each connection may hold open.
    pub fn new(service: Arc<Service>, port: u16, max_scanners_per_connection: usize) -> Handler {
        Handler {
            service,
            scanners: Arc::new(Scanners::new(max_scanners_per_connection)),
            port,
        }
    }

    /// The Thrift side's scanner table (the server's reaper keeps it in step with the
    /// service's).
    pub(crate) fn scanners(&self) -> Arc<Scanners> {
        Arc::clone(&self.scanners)
    }

    /// Opens a service scanner: what every scannerOpen* variant does with its request.
    async fn open_scanner<E: Declared>(
        &self,
        table_name: Option<Text>,
        req: ScanRequest,
    ) -> Reply<ScannerId, E> {
        // Read here: the task-local does not follow the call onto the blocking pool.
        let owner = crate::connection_scope::current();
        self.run(move |s, sc| sc.open(s, &b(table_name), req, owner).map(ScannerId))
            .await
    }

    /// Runs `f` on the blocking pool and fits its outcome to the method's exceptions.
    async fn run<T, E, F>(&self, f: F) -> Reply<T, E>
    where
        T: Send + 'static,
        E: Declared,
        F: FnOnce(&Service, &Scanners) -> CallResult<T> + Send + 'static,
    {
        let service = Arc::clone(&self.service);
        let scanners = Arc::clone(&self.scanners);
        let result = tokio::task::spawn_blocking(move || f(&service, &scanners))
            .await
            .unwrap_or_else(|e| Err(Failure::io(format!("internal error: {e}"))));
        reply(result)
    }
}

impl Handler {
    /// Runs a one-row read on the calling task.
    ///
    /// Why: a point read is answered from the memstore or block cache in microseconds (one
    /// block read on a miss), while the hop to the blocking pool and back costs two thread
    /// wake-ups, most of a cached read's time. Everything else (writes that wait for the
    /// WAL, scans, admin calls) still goes through [`Handler::run`].
    fn run_point_read<T, E, F>(&self, f: F) -> Reply<T, E>
    where
        E: Declared,
        F: FnOnce(&Service) -> CallResult<T>,
    {
        reply(f(&self.service))
    }
}

fn b(t: Option<Text>) -> Bytes {
    t.map(|t| t.0).unwrap_or_default()
}

fn bb(t: Option<t::Bytes>) -> Bytes {
    t.map(|t| t.0).unwrap_or_default()
}

fn list(l: Option<Vec<Text>>) -> Option<Vec<Bytes>> {
    l.map(|l| l.into_iter().map(|t| t.0).collect())
}

fn ts(t: Option<i64>) -> i64 {
    t.unwrap_or(LATEST_TIMESTAMP)
}

fn scanner_id(id: Option<ScannerId>) -> i32 {
    id.map_or(-1, |i| i.0)
}

/// A timestamped read of a column: HBase's `[0, T)`.
fn before(timestamp: i64) -> CallResult<strata_engine::TimeRange> {
    crate::ops::before(timestamp)
}

impl Hbase for Handler {
    async fn enable_table(
        &self,
        table_name: Option<t::Bytes>,
    ) -> Reply<(), HbaseEnableTableException> {
        self.run(move |s, _| admin::set_enabled(s, &bb(table_name), true))
            .await
    }

    async fn disable_table(
        &self,
        table_name: Option<t::Bytes>,
    ) -> Reply<(), HbaseDisableTableException> {
        self.run(move |s, _| admin::set_enabled(s, &bb(table_name), false))
            .await
    }

    async fn is_table_enabled(
        &self,
        table_name: Option<t::Bytes>,
    ) -> Reply<bool, HbaseIsTableEnabledException> {
        self.run(move |s, _| admin::is_enabled(s, &bb(table_name)))
            .await
    }

    async fn compact(&self, name: Option<t::Bytes>) -> Reply<(), HbaseCompactException> {
        self.run(move |s, _| admin::compact(s, &bb(name), false))
            .await
    }

    async fn major_compact(&self, name: Option<t::Bytes>) -> Reply<(), HbaseMajorCompactException> {
        self.run(move |s, _| admin::compact(s, &bb(name), true))
            .await
    }

    async fn get_table_names(&self) -> Reply<Vec<Text>, HbaseGetTableNamesException> {
        self.run(move |s, _| Ok(admin::table_names(s))).await
    }

    async fn get_table_names_with_is_table_enabled(
        &self,
    ) -> Reply<AHashMap<Text, bool>, HbaseGetTableNamesWithIsTableEnabledException> {
        self.run(move |s, _| admin::table_names_enabled(s)).await
    }

    async fn get_column_descriptors(
        &self,
        table_name: Option<Text>,
    ) -> Reply<AHashMap<Text, ColumnDescriptor>, HbaseGetColumnDescriptorsException> {
        self.run(move |s, _| admin::column_descriptors(s, &b(table_name)))
            .await
    }

    async fn get_table_regions(
        &self,
        table_name: Option<Text>,
    ) -> Reply<Vec<TRegionInfo>, HbaseGetTableRegionsException> {
        let port = self.port;
        self.run(move |s, _| admin::table_regions(s, &b(table_name), port))
            .await
    }

    async fn create_table(
        &self,
        table_name: Option<Text>,
        families: Option<Vec<ColumnDescriptor>>,
    ) -> Reply<(), HbaseCreateTableException> {
        self.run(move |s, _| admin::create_table(s, &b(table_name), &families.unwrap_or_default()))
            .await
    }

    async fn delete_table(&self, table_name: Option<Text>) -> Reply<(), HbaseDeleteTableException> {
        self.run(move |s, _| admin::delete_table(s, &b(table_name)))
            .await
    }

    async fn get(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        column: Option<Text>,
        _a: Attributes,
    ) -> Reply<Vec<TCell>, HbaseGetException> {
        self.run_point_read(|s| {
            reads::cells(
                s,
                &b(table_name),
                b(row),
                &b(column),
                1,
                strata_engine::TimeRange::ALL,
            )
        })
    }

    async fn get_ver(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        column: Option<Text>,
        n: Option<i32>,
        _a: Attributes,
    ) -> Reply<Vec<TCell>, HbaseGetVerException> {
        self.run_point_read(|s| {
            let range = strata_engine::TimeRange::ALL;
            reads::cells(s, &b(table_name), b(row), &b(column), n.unwrap_or(1), range)
        })
    }

    async fn get_ver_ts(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        column: Option<Text>,
        timestamp: Option<i64>,
        n: Option<i32>,
        _a: Attributes,
    ) -> Reply<Vec<TCell>, HbaseGetVerTsException> {
        self.run_point_read(|s| {
            let range = before(ts(timestamp))?;
            reads::cells(s, &b(table_name), b(row), &b(column), n.unwrap_or(1), range)
        })
    }

    async fn get_row(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowException> {
        self.run_point_read(|s| {
            reads::rows(s, &b(table_name), vec![b(row)], None, LATEST_TIMESTAMP)
        })
    }

    async fn get_row_with_columns(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        columns: Option<Vec<Text>>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowWithColumnsException> {
        self.run_point_read(|s| {
            reads::rows(
                s,
                &b(table_name),
                vec![b(row)],
                list(columns).as_deref(),
                LATEST_TIMESTAMP,
            )
        })
    }

    async fn get_row_ts(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowTsException> {
        self.run_point_read(|s| reads::rows(s, &b(table_name), vec![b(row)], None, ts(timestamp)))
    }

    async fn get_row_with_columns_ts(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        columns: Option<Vec<Text>>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowWithColumnsTsException> {
        self.run_point_read(|s| {
            reads::rows(
                s,
                &b(table_name),
                vec![b(row)],
                list(columns).as_deref(),
                ts(timestamp),
            )
        })
    }

    async fn get_rows(
        &self,
        table_name: Option<Text>,
        rows: Option<Vec<Text>>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowsException> {
        self.run(move |s, _| {
            reads::rows(
                s,
                &b(table_name),
                list(rows).unwrap_or_default(),
                None,
                LATEST_TIMESTAMP,
            )
        })
        .await
    }

    async fn get_rows_with_columns(
        &self,
        table_name: Option<Text>,
        rows: Option<Vec<Text>>,
        columns: Option<Vec<Text>>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowsWithColumnsException> {
        self.run(move |s, _| {
            let rows = list(rows).unwrap_or_default();
            reads::rows(
                s,
                &b(table_name),
                rows,
                list(columns).as_deref(),
                LATEST_TIMESTAMP,
            )
        })
        .await
    }

    async fn get_rows_ts(
        &self,
        table_name: Option<Text>,
        rows: Option<Vec<Text>>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowsTsException> {
        self.run(move |s, _| {
            reads::rows(
                s,
                &b(table_name),
                list(rows).unwrap_or_default(),
                None,
                ts(timestamp),
            )
        })
        .await
    }

    async fn get_rows_with_columns_ts(
        &self,
        table_name: Option<Text>,
        rows: Option<Vec<Text>>,
        columns: Option<Vec<Text>>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<Vec<TRowResult>, HbaseGetRowsWithColumnsTsException> {
        self.run(move |s, _| {
            let rows = list(rows).unwrap_or_default();
            reads::rows(
                s,
                &b(table_name),
                rows,
                list(columns).as_deref(),
                ts(timestamp),
            )
        })
        .await
    }

    async fn mutate_row(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        mutations: Option<Vec<Mutation>>,
        _a: Attributes,
    ) -> Reply<(), HbaseMutateRowException> {
        self.run(move |s, _| {
            writes::mutate_row(
                s,
                &b(table_name),
                b(row),
                &mutations.unwrap_or_default(),
                LATEST_TIMESTAMP,
            )
        })
        .await
    }

    async fn mutate_row_ts(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        mutations: Option<Vec<Mutation>>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<(), HbaseMutateRowTsException> {
        self.run(move |s, _| {
            writes::mutate_row(
                s,
                &b(table_name),
                b(row),
                &mutations.unwrap_or_default(),
                ts(timestamp),
            )
        })
        .await
    }

    async fn mutate_rows(
        &self,
        table_name: Option<Text>,
        batches: Option<Vec<BatchMutation>>,
        _a: Attributes,
    ) -> Reply<(), HbaseMutateRowsException> {
        self.run(move |s, _| {
            writes::mutate_rows(
                s,
                &b(table_name),
                &batches.unwrap_or_default(),
                LATEST_TIMESTAMP,
            )
        })
        .await
    }

    async fn mutate_rows_ts(
        &self,
        table_name: Option<Text>,
        batches: Option<Vec<BatchMutation>>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<(), HbaseMutateRowsTsException> {
        self.run(move |s, _| {
            writes::mutate_rows(
                s,
                &b(table_name),
                &batches.unwrap_or_default(),
                ts(timestamp),
            )
        })
        .await
    }

    async fn atomic_increment(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        column: Option<Text>,
        value: Option<i64>,
    ) -> Reply<i64, HbaseAtomicIncrementException> {
        self.run(move |s, _| {
            writes::increment(s, &b(table_name), b(row), &b(column), value.unwrap_or(0))
        })
        .await
    }

    async fn delete_all(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        column: Option<Text>,
        _a: Attributes,
    ) -> Reply<(), HbaseDeleteAllException> {
        self.run(move |s, _| {
            writes::delete_all(s, &b(table_name), b(row), &b(column), LATEST_TIMESTAMP)
        })
        .await
    }

    async fn delete_all_ts(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        column: Option<Text>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<(), HbaseDeleteAllTsException> {
        self.run(move |s, _| {
            writes::delete_all(s, &b(table_name), b(row), &b(column), ts(timestamp))
        })
        .await
    }

    async fn delete_all_row(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        _a: Attributes,
    ) -> Reply<(), HbaseDeleteAllRowException> {
        self.run(move |s, _| writes::delete_all_row(s, &b(table_name), b(row), LATEST_TIMESTAMP))
            .await
    }

    async fn increment(&self, inc: Option<TIncrement>) -> Reply<(), HbaseIncrementException> {
        self.run(move |s, _| increment_one(s, inc.unwrap_or_default()))
            .await
    }

    async fn increment_rows(
        &self,
        incs: Option<Vec<TIncrement>>,
    ) -> Reply<(), HbaseIncrementRowsException> {
        self.run(move |s, _| {
            incs.unwrap_or_default()
                .into_iter()
                .try_for_each(|i| increment_one(s, i))
        })
        .await
    }

    async fn delete_all_row_ts(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<(), HbaseDeleteAllRowTsException> {
        self.run(move |s, _| writes::delete_all_row(s, &b(table_name), b(row), ts(timestamp)))
            .await
    }

    async fn scanner_open_with_scan(
        &self,
        table_name: Option<Text>,
        scan: Option<TScan>,
        _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenWithScanException> {
        let req = ScanRequest::from_tscan(scan.unwrap_or_default());
        self.open_scanner(table_name, req).await
    }

    async fn scanner_open(
        &self,
        table_name: Option<Text>,
        start_row: Option<Text>,
        columns: Option<Vec<Text>>,
        _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenException> {
        let req = ScanRequest {
            start: b(start_row),
            columns: list(columns),
            ..Default::default()
        };
        self.open_scanner(table_name, req).await
    }

    async fn scanner_open_with_stop(
        &self,
        table_name: Option<Text>,
        start_row: Option<Text>,
        stop_row: Option<Text>,
        columns: Option<Vec<Text>>,
        _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenWithStopException> {
        let req = ScanRequest {
            start: b(start_row),
            stop: b(stop_row),
            columns: list(columns),
            ..Default::default()
        };
        self.open_scanner(table_name, req).await
    }

    async fn scanner_open_with_prefix(
        &self,
        table_name: Option<Text>,
        prefix: Option<Text>,
        columns: Option<Vec<Text>>,
        _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenWithPrefixException> {
        // HBase stops at the first row without the prefix; for a forward scan that is the
        // range [prefix, the next key after every prefixed key).
        let prefix = b(prefix);
        let req = ScanRequest {
            stop: prefix_end(&prefix),
            start: prefix,
            columns: list(columns),
            ..Default::default()
        };
        self.open_scanner(table_name, req).await
    }

    async fn scanner_open_ts(
        &self,
        table_name: Option<Text>,
        start_row: Option<Text>,
        columns: Option<Vec<Text>>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenTsException> {
        let req = ScanRequest {
            start: b(start_row),
            columns: list(columns),
            timestamp: Some(ts(timestamp)),
            ..Default::default()
        };
        self.open_scanner(table_name, req).await
    }

    async fn scanner_open_with_stop_ts(
        &self,
        table_name: Option<Text>,
        start_row: Option<Text>,
        stop_row: Option<Text>,
        columns: Option<Vec<Text>>,
        timestamp: Option<i64>,
        _a: Attributes,
    ) -> Reply<ScannerId, HbaseScannerOpenWithStopTsException> {
        let req = ScanRequest {
            start: b(start_row),
            stop: b(stop_row),
            columns: list(columns),
            timestamp: Some(ts(timestamp)),
            ..Default::default()
        };
        self.open_scanner(table_name, req).await
    }

    async fn scanner_get(
        &self,
        id: Option<ScannerId>,
    ) -> Reply<Vec<TRowResult>, HbaseScannerGetException> {
        self.run(move |s, sc| sc.next(s, scanner_id(id), 1)).await
    }

    async fn scanner_get_list(
        &self,
        id: Option<ScannerId>,
        n: Option<i32>,
    ) -> Reply<Vec<TRowResult>, HbaseScannerGetListException> {
        self.run(move |s, sc| sc.next(s, scanner_id(id), n.unwrap_or(1)))
            .await
    }

    async fn scanner_close(&self, id: Option<ScannerId>) -> Reply<(), HbaseScannerCloseException> {
        self.run(move |s, sc| sc.close(s, scanner_id(id))).await
    }

    async fn get_region_info(
        &self,
        row: Option<Text>,
    ) -> Reply<TRegionInfo, HbaseGetRegionInfoException> {
        let port = self.port;
        self.run(move |s, _| admin::region_info(s, &b(row), port))
            .await
    }

    async fn append(&self, append: Option<TAppend>) -> Reply<Vec<TCell>, HbaseAppendException> {
        self.run(move |s, _| {
            let append = append.unwrap_or_default();
            let columns: Vec<Bytes> = append
                .columns
                .unwrap_or_default()
                .into_iter()
                .map(|c| c.0)
                .collect();
            let values: Vec<Bytes> = append
                .values
                .unwrap_or_default()
                .into_iter()
                .map(|v| v.0)
                .collect();
            let table = append.table.map(|t| t.0).unwrap_or_default();
            let row = append.row.map(|r| r.0).unwrap_or_default();
            let cells = writes::append(s, &table, row, &columns, &values)?;
            Ok(cells.iter().map(crate::results::tcell).collect())
        })
        .await
    }

    async fn get_row_or_before(
        &self,
        _table_name: Option<Text>,
        _row: Option<Text>,
        _family: Option<Text>,
    ) -> Reply<Vec<TCell>, HbaseGetRowOrBeforeException> {
        // HBase 2 removed getRowOrBefore and answers it as an unknown method; so does Strata
        // (the method is in the IDL only so the reply is that error, not a dropped connection).
        Err(ServerError::Application(
            volo_thrift::ApplicationException::new(
                volo_thrift::ApplicationExceptionKind::UNKNOWN_METHOD,
                "Invalid method name: 'getRowOrBefore'".to_string(),
            ),
        ))
    }

    async fn check_and_put(
        &self,
        table_name: Option<Text>,
        row: Option<Text>,
        column: Option<Text>,
        value: Option<Text>,
        mput: Option<Mutation>,
        _a: Attributes,
    ) -> Reply<bool, HbaseCheckAndPutException> {
        self.run(move |s, _| {
            let value = value.map(|v| v.0);
            writes::check_and_put(
                s,
                &b(table_name),
                b(row),
                &b(column),
                value,
                &mput.unwrap_or_default(),
            )
        })
        .await
    }

    async fn get_thrift_server_type(&self) -> Result<TThriftServerType, ServerError> {
        Ok(TThriftServerType::ONE)
    }

    async fn get_cluster_id(&self) -> Result<FastStr, ServerError> {
        Ok(FastStr::from_static_str("strata-standalone"))
    }

    async fn grant(&self, _info: Option<TAccessControlEntity>) -> Reply<bool, HbaseGrantException> {
        unsupported("grant (Strata has no access control)")
    }

    async fn revoke(
        &self,
        _info: Option<TAccessControlEntity>,
    ) -> Reply<bool, HbaseRevokeException> {
        unsupported("revoke (Strata has no access control)")
    }

    // Strata extensions: each unwraps its arguments and calls `ops::strata`.

    async fn strata_list_namespaces(
        &self,
    ) -> Reply<Vec<FastStr>, HbaseStrataListNamespacesException> {
        self.run(move |s, _| Ok(ext::admin::list_namespaces(s)))
            .await
    }

    async fn strata_create_namespace(
        &self,
        name: Option<FastStr>,
    ) -> Reply<(), HbaseStrataCreateNamespaceException> {
        self.run(move |s, _| ext::admin::create_namespace(s, &ext::admin::namespace(name)?))
            .await
    }

    async fn strata_delete_namespace(
        &self,
        name: Option<FastStr>,
    ) -> Reply<(), HbaseStrataDeleteNamespaceException> {
        self.run(move |s, _| ext::admin::delete_namespace(s, &ext::admin::namespace(name)?))
            .await
    }

    async fn strata_create_table(
        &self,
        table_name: Option<Text>,
        families: Option<Vec<TStrataFamily>>,
        split_keys: Option<Vec<Text>>,
        durability: Option<FastStr>,
    ) -> Reply<(), HbaseStrataCreateTableException> {
        self.run(move |s, _| {
            let splits = list(split_keys).unwrap_or_default();
            let families = families.unwrap_or_default();
            let durability = durability.as_deref();
            ext::admin::create_table(s, &b(table_name), &families, splits, durability)
        })
        .await
    }

    async fn strata_get_table_durability(
        &self,
        table_name: Option<Text>,
    ) -> Reply<FastStr, HbaseStrataGetTableDurabilityException> {
        self.run(move |s, _| ext::admin::table_durability(s, &b(table_name)))
            .await
    }

    async fn strata_set_table_durability(
        &self,
        table_name: Option<Text>,
        durability: Option<FastStr>,
    ) -> Reply<(), HbaseStrataSetTableDurabilityException> {
        self.run(move |s, _| {
            ext::admin::set_table_durability(s, &b(table_name), durability.as_deref())
        })
        .await
    }

    async fn strata_describe_table(
        &self,
        table_name: Option<Text>,
    ) -> Reply<Vec<TStrataFamily>, HbaseStrataDescribeTableException> {
        self.run(move |s, _| ext::admin::describe_table(s, &b(table_name)))
            .await
    }

    async fn strata_alter_family(
        &self,
        table_name: Option<Text>,
        family: Option<TStrataFamily>,
    ) -> Reply<(), HbaseStrataAlterFamilyException> {
        self.run(move |s, _| {
            ext::admin::alter_family(s, &b(table_name), &family.unwrap_or_default())
        })
        .await
    }

    async fn strata_delete_family(
        &self,
        table_name: Option<Text>,
        family: Option<Text>,
    ) -> Reply<(), HbaseStrataDeleteFamilyException> {
        self.run(move |s, _| ext::admin::delete_family(s, &b(table_name), &b(family)))
            .await
    }

    async fn strata_truncate_table(
        &self,
        table_name: Option<Text>,
        preserve_splits: Option<bool>,
    ) -> Reply<(), HbaseStrataTruncateTableException> {
        let preserve = preserve_splits.unwrap_or(false);
        self.run(move |s, _| ext::admin::truncate_table(s, &b(table_name), preserve))
            .await
    }

    async fn strata_flush(&self, name: Option<Text>) -> Reply<(), HbaseStrataFlushException> {
        self.run(move |s, _| ext::regions::flush(s, &b(name))).await
    }

    async fn strata_split(
        &self,
        name: Option<Text>,
        point: Option<Text>,
    ) -> Reply<(), HbaseStrataSplitException> {
        self.run(move |s, _| ext::regions::split(s, &b(name), point.map(|p| p.0)))
            .await
    }

    async fn strata_merge_regions(
        &self,
        a: Option<Text>,
        b_name: Option<Text>,
    ) -> Reply<(), HbaseStrataMergeRegionsException> {
        self.run(move |s, _| ext::regions::merge(s, &b(a), &b(b_name)))
            .await
    }

    async fn strata_status(&self) -> Reply<TStrataStatus, HbaseStrataStatusException> {
        self.run(move |s, _| ext::regions::status(s)).await
    }
}

fn increment_one(s: &Service, inc: TIncrement) -> CallResult<()> {
    let amount = inc.ammount.unwrap_or(0);
    writes::increment(s, &b(inc.table), b(inc.row), &b(inc.column), amount).map(|_| ())
}

fn unsupported<T, E: Declared>(what: &str) -> Reply<T, E> {
    reply(Err(Failure::io(format!(
        "{what} is not supported by Strata"
    ))))
}
