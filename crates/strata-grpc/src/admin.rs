//! `google.bigtable.admin.v2.BigtableTableAdmin`: the Table Admin API over the service layer.

use std::sync::Arc;

use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as pb;
use strata_server::Service;
use tonic::{Request, Response, Status};

use crate::generated::bigtable_table_admin_server::BigtableTableAdmin;

/// Runs a blocking service call off the async runtime's worker threads.
pub(crate) async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> strata_server::Result<T> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|e| Status::internal(format!("request task failed: {e}")))?
        .map_err(crate::error::status)
}

/// The Table Admin API.
pub struct AdminApi {
    service: Arc<Service>,
}

impl AdminApi {
    pub fn new(service: Arc<Service>) -> Self {
        AdminApi { service }
    }
}

#[tonic::async_trait]
impl BigtableTableAdmin for AdminApi {
    async fn create_table(
        &self,
        _request: Request<pb::CreateTableRequest>,
    ) -> Result<Response<pb::Table>, Status> {
        Err(Status::unimplemented("CreateTable is not implemented yet"))
    }

    async fn list_tables(
        &self,
        request: Request<pb::ListTablesRequest>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        let parent = &request.get_ref().parent;
        let namespace = crate::names::instance_of(parent)?;
        let project = parent.split('/').nth(1).unwrap_or_default();
        let tables = self
            .service
            .list_tables()
            .into_iter()
            .filter(|t| t.namespace == namespace)
            .map(|t| pb::Table {
                name: crate::names::bigtable_name(project, &t),
                ..Default::default()
            })
            .collect();
        Ok(Response::new(pb::ListTablesResponse {
            tables,
            next_page_token: String::new(),
        }))
    }

    async fn get_table(
        &self,
        _request: Request<pb::GetTableRequest>,
    ) -> Result<Response<pb::Table>, Status> {
        Err(Status::unimplemented("GetTable is not implemented yet"))
    }

    async fn delete_table(
        &self,
        request: Request<pb::DeleteTableRequest>,
    ) -> Result<Response<()>, Status> {
        let table = crate::names::table_of("name", &request.get_ref().name)?;
        let service = Arc::clone(&self.service);
        // Bigtable deletes an enabled table in one call; HBase wants it disabled first.
        blocking(move || {
            if service.is_table_enabled(&table)? {
                service.disable_table(&table)?;
            }
            service.delete_table(&table)
        })
        .await?;
        Ok(Response::new(()))
    }

    async fn modify_column_families(
        &self,
        _request: Request<pb::ModifyColumnFamiliesRequest>,
    ) -> Result<Response<pb::Table>, Status> {
        Err(Status::unimplemented(
            "ModifyColumnFamilies is not implemented yet",
        ))
    }

    async fn drop_row_range(
        &self,
        _request: Request<pb::DropRowRangeRequest>,
    ) -> Result<Response<()>, Status> {
        Err(Status::unimplemented("DropRowRange is not implemented yet"))
    }

    async fn generate_consistency_token(
        &self,
        _request: Request<pb::GenerateConsistencyTokenRequest>,
    ) -> Result<Response<pb::GenerateConsistencyTokenResponse>, Status> {
        Err(Status::unimplemented(
            "GenerateConsistencyToken is not implemented yet",
        ))
    }

    async fn check_consistency(
        &self,
        _request: Request<pb::CheckConsistencyRequest>,
    ) -> Result<Response<pb::CheckConsistencyResponse>, Status> {
        Err(Status::unimplemented(
            "CheckConsistency is not implemented yet",
        ))
    }
}
