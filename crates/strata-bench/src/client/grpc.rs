//! The gRPC target: a Cloud Bigtable v2 server (Strata's, or Google's emulator) through the
//! generated tonic stubs. Point reads are a one-key row set, scans a key range with a row
//! limit, writes `MutateRow`/`MutateRows`, increments `ReadModifyWriteRow` and checks
//! `CheckAndMutateRow`. Tables are created with the Table Admin API's `CreateTable`, with the
//! pre-split keys as initial splits.
//!
//! Names: `projects/<project>/instances/<namespace>/tables/<table>`, where a table given as
//! `ns:table` uses `ns` as the instance (Strata maps instances onto namespaces) and a bare
//! name uses the instance `default`.

use std::net::SocketAddr;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::bigtable_client::BigtableClient;
use tonic::transport::Channel;

use super::{decode_counter, Client, RowWrite, ScanOutcome, TableSpec, Target};
use crate::error::{BenchError, BenchResult};

const NAME: &str = "grpc";

fn err(message: impl Into<String>) -> BenchError {
    BenchError::target(NAME, message.into())
}

fn status(s: tonic::Status) -> BenchError {
    err(format!("{:?}: {}", s.code(), s.message()))
}

/// A Bigtable v2 server at `addr`.
pub struct GrpcTarget {
    addr: SocketAddr,
    project: String,
    instance: String,
    table_id: String,
    spec: TableSpec,
}

impl GrpcTarget {
    /// `--durability` is refused: the Bigtable API has no per-request durability.
    pub fn new(addr: SocketAddr, project: &str, spec: TableSpec) -> BenchResult<Self> {
        if spec.durability.is_some() {
            return Err(BenchError::Config(
                "--durability is not available over gRPC (Bigtable has no per-write durability)"
                    .into(),
            ));
        }
        let (instance, table_id) = match spec.table.split_once(':') {
            Some((ns, table)) => (ns.to_string(), table.to_string()),
            None => ("default".to_string(), spec.table.clone()),
        };
        Ok(GrpcTarget {
            addr,
            project: project.to_string(),
            instance,
            table_id,
            spec,
        })
    }

    fn parent(&self) -> String {
        format!("projects/{}/instances/{}", self.project, self.instance)
    }

    fn table_name(&self) -> String {
        format!("{}/tables/{}", self.parent(), self.table_id)
    }
}

/// A single-threaded runtime with one channel (one HTTP/2 connection) on it.
fn runtime_and_channel(addr: SocketAddr) -> BenchResult<(tokio::runtime::Runtime, Channel)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| err(format!("tokio runtime: {e}")))?;
    let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .map_err(|e| err(e.to_string()))?;
    let channel = runtime
        .block_on(endpoint.connect())
        .map_err(|e| err(format!("cannot connect to {addr}: {e}")))?;
    Ok((runtime, channel))
}

impl Target for GrpcTarget {
    fn name(&self) -> &'static str {
        NAME
    }

    fn prepare_table(&self) -> BenchResult<()> {
        use admin::bigtable_table_admin_client::BigtableTableAdminClient;
        let (runtime, channel) = runtime_and_channel(self.addr)?;
        let mut client = BigtableTableAdminClient::new(channel);
        let families = [(self.spec.family.clone(), admin::ColumnFamily::default())];
        let request = admin::CreateTableRequest {
            parent: self.parent(),
            table_id: self.table_id.clone(),
            table: Some(admin::Table {
                column_families: families.into_iter().collect(),
                ..Default::default()
            }),
            initial_splits: self
                .spec
                .split_keys
                .iter()
                .map(|k| admin::create_table_request::Split {
                    key: Bytes::copy_from_slice(k),
                })
                .collect(),
        };
        match runtime.block_on(client.create_table(request)) {
            Ok(_) => Ok(()),
            Err(s) if s.code() == tonic::Code::AlreadyExists => Ok(()),
            Err(s) => Err(status(s)),
        }
    }

    fn connect(&self) -> BenchResult<Box<dyn Client>> {
        let (runtime, channel) = runtime_and_channel(self.addr)?;
        Ok(Box::new(GrpcClient {
            runtime,
            client: BigtableClient::new(channel),
            table_name: self.table_name(),
            family: self.spec.family.clone(),
        }))
    }
}

struct GrpcClient {
    runtime: tokio::runtime::Runtime,
    client: BigtableClient<Channel>,
    table_name: String,
    family: String,
}

fn set_cell(family: &str, qualifier: &[u8], value: &[u8]) -> pb::Mutation {
    pb::Mutation {
        mutation: Some(pb::mutation::Mutation::SetCell(pb::mutation::SetCell {
            family_name: family.to_string(),
            column_qualifier: Bytes::copy_from_slice(qualifier),
            // -1: the server's time, like an HBase put without a timestamp.
            timestamp_micros: -1,
            value: Bytes::copy_from_slice(value),
        })),
    }
}

fn filter(f: pb::row_filter::Filter) -> pb::RowFilter {
    pb::RowFilter { filter: Some(f) }
}

/// An RE2 pattern matching exactly `bytes`. Only ASCII is accepted: RE2 patterns are text,
/// and the benchmark's checked values (PE row keys) are ASCII digits anyway.
pub fn regex_literal(bytes: &[u8]) -> BenchResult<Vec<u8>> {
    let mut pattern = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes {
        if !b.is_ascii() || b.is_ascii_control() {
            return Err(err(format!(
                "byte {b:#04x} cannot be matched by this benchmark's gRPC check filter"
            )));
        }
        if !b.is_ascii_alphanumeric() {
            pattern.push(b'\\');
        }
        pattern.push(b);
    }
    Ok(pattern)
}

/// Only the newest version of each column of `family`.
fn newest_in(family: &str) -> BenchResult<pb::RowFilter> {
    use pb::row_filter::{Chain, Filter};
    let family =
        String::from_utf8(regex_literal(family.as_bytes())?).map_err(|e| err(e.to_string()))?;
    Ok(filter(Filter::Chain(Chain {
        filters: vec![
            filter(Filter::FamilyNameRegexFilter(family)),
            filter(Filter::CellsPerColumnLimitFilter(1)),
        ],
    })))
}

/// What a ReadRows stream returned.
struct RowsRead {
    outcome: ScanOutcome,
    cells: usize,
    keys: Vec<Vec<u8>>,
}

/// Rows, cells and keys of a ReadRows stream.
async fn collect_rows(mut stream: tonic::Streaming<pb::ReadRowsResponse>) -> BenchResult<RowsRead> {
    use pb::read_rows_response::cell_chunk::RowStatus;
    let mut outcome = ScanOutcome::default();
    let (mut cells, mut row_cells, mut current) = (0, 0, Vec::new());
    let mut keys = Vec::new();
    while let Some(response) = stream.message().await.map_err(status)? {
        for chunk in response.chunks {
            if !chunk.row_key.is_empty() {
                current = chunk.row_key.to_vec();
            }
            if chunk.value_size == 0 {
                row_cells += 1;
            }
            match chunk.row_status {
                Some(RowStatus::CommitRow(true)) => {
                    outcome.rows += 1;
                    cells += row_cells;
                    row_cells = 0;
                    keys.push(current.clone());
                    outcome.last_key = Some(std::mem::take(&mut current));
                }
                Some(RowStatus::ResetRow(true)) => row_cells = 0,
                _ => {}
            }
        }
    }
    Ok(RowsRead {
        outcome,
        cells,
        keys,
    })
}

impl GrpcClient {
    fn read_rows(&mut self, rows: pb::RowSet, limit: i64) -> BenchResult<RowsRead> {
        let request = pb::ReadRowsRequest {
            table_name: self.table_name.clone(),
            rows: Some(rows),
            filter: Some(newest_in(&self.family)?),
            rows_limit: limit,
            ..Default::default()
        };
        let client = &mut self.client;
        self.runtime.block_on(async move {
            let stream = client
                .read_rows(request)
                .await
                .map_err(status)?
                .into_inner();
            collect_rows(stream).await
        })
    }

    fn point_set(rows: &[Vec<u8>]) -> pb::RowSet {
        pb::RowSet {
            row_keys: rows.iter().map(|r| Bytes::copy_from_slice(r)).collect(),
            row_ranges: Vec::new(),
        }
    }
}

impl Client for GrpcClient {
    fn write(&mut self, rows: &[RowWrite]) -> BenchResult<()> {
        let mutations = |row: &RowWrite| -> Vec<pb::Mutation> {
            let cells = row.columns.iter();
            cells.map(|(q, v)| set_cell(&self.family, q, v)).collect()
        };
        if let [row] = rows {
            let request = pb::MutateRowRequest {
                table_name: self.table_name.clone(),
                row_key: Bytes::copy_from_slice(&row.key),
                mutations: mutations(row),
                ..Default::default()
            };
            let call = self.client.mutate_row(request);
            return self.runtime.block_on(call).map(|_| ()).map_err(status);
        }
        let entries = rows
            .iter()
            .map(|row| pb::mutate_rows_request::Entry {
                row_key: Bytes::copy_from_slice(&row.key),
                mutations: mutations(row),
                idempotency: None,
            })
            .collect();
        let request = pb::MutateRowsRequest {
            table_name: self.table_name.clone(),
            entries,
            ..Default::default()
        };
        let client = &mut self.client;
        self.runtime.block_on(async move {
            let mut stream = client
                .mutate_rows(request)
                .await
                .map_err(status)?
                .into_inner();
            while let Some(response) = stream.message().await.map_err(status)? {
                let failed = response.entries.iter().filter_map(|e| e.status.as_ref());
                if let Some(bad) = failed.into_iter().find(|s| s.code != 0) {
                    return Err(err(format!("MutateRows entry failed: {}", bad.message)));
                }
            }
            Ok(())
        })
    }

    fn read(&mut self, row: &[u8]) -> BenchResult<Option<usize>> {
        let read = self.read_rows(Self::point_set(&[row.to_vec()]), 1)?;
        Ok((read.outcome.rows > 0).then_some(read.cells))
    }

    fn read_many(&mut self, rows: &[Vec<u8>]) -> BenchResult<usize> {
        // A row set returns each row once, so a key asked for twice is found through the
        // set of returned keys (as HBase answers each Get of a multi-get on its own).
        let read = self.read_rows(Self::point_set(rows), 0)?;
        let found: std::collections::HashSet<&[u8]> = read.keys.iter().map(Vec::as_slice).collect();
        Ok(rows.iter().filter(|r| found.contains(r.as_slice())).count())
    }

    fn scan(
        &mut self,
        start: &[u8],
        stop: Option<&[u8]>,
        limit: usize,
    ) -> BenchResult<ScanOutcome> {
        use pb::row_range::{EndKey, StartKey};
        let range = pb::RowRange {
            start_key: Some(StartKey::StartKeyClosed(Bytes::copy_from_slice(start))),
            end_key: stop.map(|s| EndKey::EndKeyOpen(Bytes::copy_from_slice(s))),
        };
        let rows = pb::RowSet {
            row_keys: Vec::new(),
            row_ranges: vec![range],
        };
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        Ok(self.read_rows(rows, limit)?.outcome)
    }

    fn increment(&mut self, row: &[u8], qualifier: &[u8], amount: i64) -> BenchResult<i64> {
        use pb::read_modify_write_rule::Rule;
        let request = pb::ReadModifyWriteRowRequest {
            table_name: self.table_name.clone(),
            row_key: Bytes::copy_from_slice(row),
            rules: vec![pb::ReadModifyWriteRule {
                family_name: self.family.clone(),
                column_qualifier: Bytes::copy_from_slice(qualifier),
                rule: Some(Rule::IncrementAmount(amount)),
            }],
            ..Default::default()
        };
        let call = self.client.read_modify_write_row(request);
        let response = self.runtime.block_on(call).map_err(status)?.into_inner();
        let cells = response.row.into_iter().flat_map(|r| r.families);
        let cell = cells
            .flat_map(|f| f.columns)
            .find(|c| c.qualifier.as_ref() == qualifier)
            .and_then(|c| c.cells.into_iter().next())
            .ok_or_else(|| err("ReadModifyWriteRow returned no cell"))?;
        decode_counter(NAME, &cell.value)
    }

    fn check_and_put(
        &mut self,
        row: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
    ) -> BenchResult<bool> {
        use pb::row_filter::{Chain, Filter};
        let predicate = filter(Filter::Chain(Chain {
            filters: vec![
                newest_in(&self.family)?,
                filter(Filter::ColumnQualifierRegexFilter(
                    regex_literal(qualifier)?.into(),
                )),
                filter(Filter::ValueRegexFilter(regex_literal(expected)?.into())),
            ],
        }));
        let request = pb::CheckAndMutateRowRequest {
            table_name: self.table_name.clone(),
            row_key: Bytes::copy_from_slice(row),
            predicate_filter: Some(predicate),
            true_mutations: vec![set_cell(&self.family, qualifier, value)],
            ..Default::default()
        };
        let call = self.client.check_and_mutate_row(request);
        let response = self.runtime.block_on(call).map_err(status)?.into_inner();
        Ok(response.predicate_matched)
    }
}
