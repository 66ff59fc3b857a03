//! `google.bigtable.v2.Bigtable`: the Data API over the service layer. One file per call;
//! `cells` converts timestamps and names, `row_set` and `chunker` shape ReadRows,
//! `mutations` turns Bigtable mutations into Strata cells.

mod cells;
mod check_and_mutate;
mod chunker;
mod mutate;
mod mutations;
mod read_modify_write;
mod read_rows;
mod row_set;
mod sample_row_keys;
pub mod sampler;

use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use strata_server::{Service, TableName};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::generated::bigtable_server::Bigtable;

/// A stream of responses or a status ending it.
pub type ResponseStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// The Data API.
pub struct DataApi {
    service: Arc<Service>,
}

impl DataApi {
    pub fn new(service: Arc<Service>) -> Self {
        DataApi { service }
    }
}

/// The table a request names, with its family names (to check mutations before they run).
pub(crate) struct Target {
    table: TableName,
    families: Vec<Bytes>,
}

impl Target {
    /// Resolves `table_name`; the lookup is in memory, so it runs on the async thread.
    fn resolve(service: &Service, table_name: &str) -> Result<Target, Status> {
        let table = crate::names::table_of("table_name", table_name)?;
        let descriptor = service
            .admin()
            .describe_table(&table)
            .map_err(crate::error::status)?;
        let families = descriptor
            .families
            .into_iter()
            .map(|f| Bytes::from(f.name.to_vec()))
            .collect();
        Ok(Target { table, families })
    }

    fn display(&self) -> String {
        self.table.to_string()
    }
}

/// A row key a mutation names: it must not be empty.
fn checked_row_key(field: &str, key: &Bytes) -> Result<Bytes, Status> {
    if key.is_empty() {
        return Err(Status::invalid_argument(format!(
            "{field}: must not be empty"
        )));
    }
    Ok(key.clone())
}

fn one<T: Send + 'static>(message: T) -> ResponseStream<T> {
    Box::pin(tokio_stream::once(Ok(message)))
}

#[tonic::async_trait]
impl Bigtable for DataApi {
    type ReadRowsStream = ResponseStream<pb::ReadRowsResponse>;
    type SampleRowKeysStream = ResponseStream<pb::SampleRowKeysResponse>;
    type MutateRowsStream = ResponseStream<pb::MutateRowsResponse>;

    /// Clients may ask for reversed scans with the `bigtable-features` header; Strata
    /// always supports them, so the header needs no answer.
    async fn read_rows(
        &self,
        request: Request<pb::ReadRowsRequest>,
    ) -> Result<Response<Self::ReadRowsStream>, Status> {
        let service = Arc::clone(&self.service);
        let sampler = sampler::for_request(request.metadata());
        let stream = read_rows::read_rows(service, request.into_inner(), sampler).await?;
        Ok(Response::new(stream))
    }

    async fn sample_row_keys(
        &self,
        request: Request<pb::SampleRowKeysRequest>,
    ) -> Result<Response<Self::SampleRowKeysStream>, Status> {
        let service = Arc::clone(&self.service);
        let samples = sample_row_keys::sample_row_keys(service, request.into_inner()).await?;
        let stream = tokio_stream::iter(samples.into_iter().map(Ok));
        Ok(Response::new(Box::pin(stream)))
    }

    async fn mutate_row(
        &self,
        request: Request<pb::MutateRowRequest>,
    ) -> Result<Response<pb::MutateRowResponse>, Status> {
        let service = Arc::clone(&self.service);
        let reply = mutate::mutate_row(service, request.into_inner()).await?;
        Ok(Response::new(reply))
    }

    async fn mutate_rows(
        &self,
        request: Request<pb::MutateRowsRequest>,
    ) -> Result<Response<Self::MutateRowsStream>, Status> {
        let service = Arc::clone(&self.service);
        let reply = mutate::mutate_rows(service, request.into_inner()).await?;
        Ok(Response::new(one(reply)))
    }

    async fn check_and_mutate_row(
        &self,
        request: Request<pb::CheckAndMutateRowRequest>,
    ) -> Result<Response<pb::CheckAndMutateRowResponse>, Status> {
        let service = Arc::clone(&self.service);
        let sampler = sampler::for_request(request.metadata());
        let reply =
            check_and_mutate::check_and_mutate_row(service, request.into_inner(), sampler).await?;
        Ok(Response::new(reply))
    }

    async fn ping_and_warm(
        &self,
        request: Request<pb::PingAndWarmRequest>,
    ) -> Result<Response<pb::PingAndWarmResponse>, Status> {
        crate::names::instance_of(&request.get_ref().name)?;
        Ok(Response::new(pb::PingAndWarmResponse {}))
    }

    async fn read_modify_write_row(
        &self,
        request: Request<pb::ReadModifyWriteRowRequest>,
    ) -> Result<Response<pb::ReadModifyWriteRowResponse>, Status> {
        let service = Arc::clone(&self.service);
        let reply = read_modify_write::read_modify_write_row(service, request.into_inner()).await?;
        Ok(Response::new(reply))
    }
}
