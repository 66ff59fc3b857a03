//! `google.bigtable.v2.Bigtable`: the Data API over the service layer.

use std::pin::Pin;
use std::sync::Arc;

use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use strata_server::Service;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::generated::bigtable_server::Bigtable;

/// A stream of responses or a status ending it.
pub type ResponseStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// The Data API.
pub struct DataApi {
    #[allow(dead_code)]
    service: Arc<Service>,
}

impl DataApi {
    pub fn new(service: Arc<Service>) -> Self {
        DataApi { service }
    }
}

#[tonic::async_trait]
impl Bigtable for DataApi {
    type ReadRowsStream = ResponseStream<pb::ReadRowsResponse>;
    type SampleRowKeysStream = ResponseStream<pb::SampleRowKeysResponse>;
    type MutateRowsStream = ResponseStream<pb::MutateRowsResponse>;

    async fn read_rows(
        &self,
        _request: Request<pb::ReadRowsRequest>,
    ) -> Result<Response<Self::ReadRowsStream>, Status> {
        Err(Status::unimplemented("ReadRows is not implemented yet"))
    }

    async fn sample_row_keys(
        &self,
        _request: Request<pb::SampleRowKeysRequest>,
    ) -> Result<Response<Self::SampleRowKeysStream>, Status> {
        Err(Status::unimplemented(
            "SampleRowKeys is not implemented yet",
        ))
    }

    async fn mutate_row(
        &self,
        _request: Request<pb::MutateRowRequest>,
    ) -> Result<Response<pb::MutateRowResponse>, Status> {
        Err(Status::unimplemented("MutateRow is not implemented yet"))
    }

    async fn mutate_rows(
        &self,
        _request: Request<pb::MutateRowsRequest>,
    ) -> Result<Response<Self::MutateRowsStream>, Status> {
        Err(Status::unimplemented("MutateRows is not implemented yet"))
    }

    async fn check_and_mutate_row(
        &self,
        _request: Request<pb::CheckAndMutateRowRequest>,
    ) -> Result<Response<pb::CheckAndMutateRowResponse>, Status> {
        Err(Status::unimplemented(
            "CheckAndMutateRow is not implemented yet",
        ))
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
        _request: Request<pb::ReadModifyWriteRowRequest>,
    ) -> Result<Response<pb::ReadModifyWriteRowResponse>, Status> {
        Err(Status::unimplemented(
            "ReadModifyWriteRow is not implemented yet",
        ))
    }
}
