//! The Thrift target: any HBase Thrift1 server (Strata's or Apache HBase's) over the buffered
//! (unframed) transport with the strict binary protocol, HBase's default server settings.
//!
//! Each worker thread gets its own volo client on its own single-threaded tokio runtime, so
//! every thread holds exactly one connection and waits for each reply (no pipelining), like a
//! blocking HBase client thread.

use std::fmt::Debug;
use std::net::SocketAddr;
use std::sync::Arc;

use pilota::{AHashMap, Bytes, FastStr};
use strata_thrift::codec::MakeCompatCodec;
use strata_thrift::gen::volo_gen::hbase::{
    BatchMutation, ColumnDescriptor, HbaseClient, HbaseClientBuilder, Mutation, ScannerId, TScan,
    Text,
};
use volo_thrift::codec::default::DefaultMakeCodec;
use volo_thrift::{ClientError, MaybeException, Protocol};

use super::thrift_routed::{RegionMap, RoutedClient};
use super::{column_name, Client, RowWrite, ScanOutcome, TableSpec, Target};
use crate::error::{BenchError, BenchResult};
use crate::target::DurabilityMode;

const NAME: &str = "thrift";

pub(super) fn err(message: impl Into<String>) -> BenchError {
    BenchError::target(NAME, message.into())
}

/// Unwraps a Thrift call: a transport error or a declared exception become errors.
fn check<T, E: Debug>(result: Result<MaybeException<T, E>, ClientError>) -> BenchResult<T> {
    match result {
        Ok(MaybeException::Ok(value)) => Ok(value),
        Ok(MaybeException::Exception(e)) => Err(err(format!("{e:?}"))),
        Err(e) => Err(err(e.to_string())),
    }
}

fn text(bytes: &[u8]) -> Option<Text> {
    Some(Text(Bytes::copy_from_slice(bytes)))
}

/// A Thrift1 server at `addr`.
pub struct ThriftTarget {
    addr: SocketAddr,
    spec: TableSpec,
    /// Send each row to its region's server (`thrift_routed.rs`), once the map is read.
    route_by_region: bool,
    map: std::sync::OnceLock<Arc<RegionMap>>,
}

impl ThriftTarget {
    /// `--presplit` cannot be honoured: Thrift1's `createTable` takes no split keys.
    pub fn new(addr: SocketAddr, spec: TableSpec) -> BenchResult<Self> {
        if !spec.split_keys.is_empty() {
            return Err(BenchError::Config(
                "--presplit is not available over Thrift1 (createTable takes no split keys); \
                 create the table beforehand (e.g. in the HBase shell) and pass --table"
                    .into(),
            ));
        }
        Ok(ThriftTarget {
            addr,
            spec,
            route_by_region: false,
            map: std::sync::OnceLock::new(),
        })
    }

    /// Sends each row's requests to the server serving its region.
    pub fn routing_by_region(mut self) -> Self {
        self.route_by_region = true;
        self
    }

    fn client(&self, addr: SocketAddr) -> BenchResult<ThriftClient> {
        Ok(ThriftClient {
            conn: Connection::open(addr)?,
            table: text(self.spec.table.as_bytes()),
            family: self.spec.family.clone(),
            // HBase's Thrift1 can only switch the WAL off or leave it on.
            write_to_wal: self.spec.durability != Some(DurabilityMode::Skip),
        })
    }

    /// The table's region map, read through the entry server once.
    fn region_map(&self) -> BenchResult<Arc<RegionMap>> {
        if let Some(map) = self.map.get() {
            return Ok(Arc::clone(map));
        }
        let table = text(self.spec.table.as_bytes());
        let regions = Connection::open(self.addr)?
            .run(|client| async move { check(client.get_table_regions(table).await) })?;
        let located = regions
            .into_iter()
            .map(|r| {
                let start = r.start_key.map(|k| k.0.to_vec()).unwrap_or_default();
                let host = r
                    .server_name
                    .map(|h| String::from_utf8_lossy(&h.0).into_owned());
                (start, host, r.port)
            })
            .collect();
        let map = Arc::new(RegionMap::new(located, self.addr)?);
        Ok(Arc::clone(self.map.get_or_init(|| map)))
    }
}

impl Target for ThriftTarget {
    fn name(&self) -> &'static str {
        NAME
    }

    fn prepare_table(&self) -> BenchResult<()> {
        let conn = Connection::open(self.addr)?;
        let table = self.spec.table.clone();
        let family = self.spec.family.clone();
        conn.run(|client| async move {
            let names = check(client.get_table_names().await)?;
            if names.iter().any(|n| n.0.as_ref() == table.as_bytes()) {
                return Ok(());
            }
            let family = ColumnDescriptor {
                name: text(&column_name(&family, b"")),
                max_versions: Some(1),
                compression: Some(FastStr::from_static_str("NONE")),
                in_memory: Some(false),
                bloom_filter_type: Some(FastStr::from_static_str("ROW")),
                bloom_filter_vector_size: Some(0),
                bloom_filter_nb_hashes: Some(0),
                block_cache_enabled: Some(true),
                time_to_live: Some(i32::MAX),
            };
            check(
                client
                    .create_table(text(table.as_bytes()), Some(vec![family]))
                    .await,
            )
        })
    }

    fn connect(&self) -> BenchResult<Box<dyn Client>> {
        if !self.route_by_region {
            return Ok(Box::new(self.client(self.addr)?));
        }
        let map = self.region_map()?;
        let clients = map
            .servers
            .iter()
            .map(|addr| self.client(*addr))
            .collect::<BenchResult<Vec<_>>>()?;
        Ok(Box::new(RoutedClient { map, clients }))
    }
}

/// One volo client and the runtime that drives it.
struct Connection {
    runtime: tokio::runtime::Runtime,
    client: HbaseClient,
}

impl Connection {
    fn open(addr: SocketAddr) -> BenchResult<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| err(format!("tokio runtime: {e}")))?;
        // Built inside the runtime: the connection pool spawns its tasks there. The codec is
        // the server's: on the buffered transport it reads a whole binary reply into memory
        // and decodes it in one synchronous pass, where volo's own decoder awaits every field
        // (a sixth of the client's CPU on a ten-column row). It also refuses, with a clear
        // error, a reply over its 16 MiB message cap (a scan page of huge values).
        let client = runtime.block_on(async {
            HbaseClientBuilder::new("hbase")
                .address(addr)
                .make_codec(DefaultMakeCodec::new(MakeCompatCodec::new(
                    Protocol::Binary,
                )))
                .build()
        });
        Ok(Connection { runtime, client })
    }

    fn run<T, F, Fut>(&self, call: F) -> BenchResult<T>
    where
        F: FnOnce(HbaseClient) -> Fut,
        Fut: std::future::Future<Output = BenchResult<T>>,
    {
        self.runtime.block_on(call(self.client.clone()))
    }
}

pub(super) struct ThriftClient {
    conn: Connection,
    table: Option<Text>,
    family: String,
    write_to_wal: bool,
}

impl ThriftClient {
    fn mutations(&self, row: &RowWrite) -> Vec<Mutation> {
        row.columns
            .iter()
            .map(|(q, v)| Mutation {
                is_delete: Some(false),
                column: text(&column_name(&self.family, q)),
                value: text(v),
                write_to_wal: Some(self.write_to_wal),
            })
            .collect()
    }

    fn attributes() -> Option<AHashMap<Text, Text>> {
        Some(AHashMap::default())
    }

    /// Fetches up to `limit` rows from an open scanner and closes it.
    async fn drain(client: &HbaseClient, id: ScannerId, limit: usize) -> BenchResult<ScanOutcome> {
        let mut outcome = ScanOutcome::default();
        let mut result = Ok(());
        while outcome.rows < limit {
            let want = i32::try_from((limit - outcome.rows).min(1000)).unwrap_or(1000);
            match check(client.scanner_get_list(Some(id.clone()), Some(want)).await) {
                Ok(rows) if rows.is_empty() => break,
                Ok(rows) => {
                    outcome.rows += rows.len();
                    outcome.last_key = rows.last().and_then(|r| r.row.as_ref()).map(|k| k.to_vec());
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let closed = check(client.scanner_close(Some(id)).await);
        result?;
        closed?;
        Ok(outcome)
    }
}

impl Client for ThriftClient {
    fn write(&mut self, rows: &[RowWrite]) -> BenchResult<()> {
        let table = self.table.clone();
        if let [row] = rows {
            let (key, mutations) = (text(&row.key), Some(self.mutations(row)));
            return self.conn.run(|c| async move {
                check(
                    c.mutate_row(table, key, mutations, Self::attributes())
                        .await,
                )
            });
        }
        let batches: Vec<BatchMutation> = rows
            .iter()
            .map(|r| BatchMutation {
                row: text(&r.key),
                mutations: Some(self.mutations(r)),
            })
            .collect();
        self.conn.run(|c| async move {
            check(
                c.mutate_rows(table, Some(batches), Self::attributes())
                    .await,
            )
        })
    }

    fn read(&mut self, row: &[u8]) -> BenchResult<Option<usize>> {
        let (table, key) = (self.table.clone(), text(row));
        let rows = self
            .conn
            .run(|c| async move { check(c.get_row(table, key, Self::attributes()).await) })?;
        let cells = rows
            .first()
            .map(|r| r.columns.as_ref().map_or(0, |c| c.len()));
        Ok(cells.filter(|&n| n > 0))
    }

    fn read_many(&mut self, rows: &[Vec<u8>]) -> BenchResult<usize> {
        let table = self.table.clone();
        let keys: Vec<Text> = rows.iter().filter_map(|r| text(r)).collect();
        let returned = self.conn.run(|c| async move {
            check(c.get_rows(table, Some(keys), Self::attributes()).await)
        })?;
        // Counted per requested key, so that a key asked for twice counts twice whether or
        // not the server repeats the row.
        let found: std::collections::HashSet<&[u8]> = returned
            .iter()
            .filter(|r| r.columns.as_ref().is_some_and(|c| !c.is_empty()))
            .filter_map(|r| r.row.as_ref().map(|k| k.as_ref()))
            .collect();
        Ok(rows.iter().filter(|r| found.contains(r.as_slice())).count())
    }

    fn scan(
        &mut self,
        start: &[u8],
        stop: Option<&[u8]>,
        limit: usize,
    ) -> BenchResult<ScanOutcome> {
        let scan = TScan {
            start_row: text(start),
            stop_row: stop.and_then(text),
            columns: Some(vec![Text(Bytes::from(self.family.clone().into_bytes()))]),
            caching: Some(i32::try_from(limit.min(1000)).unwrap_or(1000)),
            ..TScan::default()
        };
        let table = self.table.clone();
        self.conn.run(|c| async move {
            let id = check(
                c.scanner_open_with_scan(table, Some(scan), Self::attributes())
                    .await,
            )?;
            Self::drain(&c, id, limit).await
        })
    }

    fn increment(&mut self, row: &[u8], qualifier: &[u8], amount: i64) -> BenchResult<i64> {
        let (table, key) = (self.table.clone(), text(row));
        let column = text(&column_name(&self.family, qualifier));
        self.conn.run(|c| async move {
            check(c.atomic_increment(table, key, column, Some(amount)).await)
        })
    }

    fn check_and_put(
        &mut self,
        row: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
    ) -> BenchResult<bool> {
        let column = column_name(&self.family, qualifier);
        let put = Mutation {
            is_delete: Some(false),
            column: text(&column),
            value: text(value),
            write_to_wal: Some(self.write_to_wal),
        };
        let (table, key, expected) = (self.table.clone(), text(row), text(expected));
        self.conn.run(|c| async move {
            let call = c.check_and_put(
                table,
                key,
                text(&column),
                expected,
                Some(put),
                Self::attributes(),
            );
            check(call.await)
        })
    }
}
