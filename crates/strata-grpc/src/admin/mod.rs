//! `google.bigtable.admin.v2.BigtableTableAdmin`: the Table Admin API over the service layer.
//! Each method is a short delegation to the file that owns its concept.

mod consistency;
mod drop_range;
mod families;
mod gc_rule;
mod tables;

use std::sync::Arc;

use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as pb;
use strata_server::Service;
use tonic::{Request, Response, Status};

use crate::blocking::{blocking, run};
use crate::generated::bigtable_table_admin_server::BigtableTableAdmin;

/// The Table Admin API.
pub struct AdminApi {
    service: Arc<Service>,
}

impl AdminApi {
    pub fn new(service: Arc<Service>) -> Self {
        AdminApi { service }
    }

    /// Runs `call` with the service on a blocking thread.
    async fn with_service<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Arc<Service>) -> Result<T, Status> + Send + 'static,
    ) -> Result<Response<T>, Status> {
        let service = Arc::clone(&self.service);
        run(move || call(&service)).await.map(Response::new)
    }
}

#[tonic::async_trait]
impl BigtableTableAdmin for AdminApi {
    async fn create_table(
        &self,
        request: Request<pb::CreateTableRequest>,
    ) -> Result<Response<pb::Table>, Status> {
        let request = request.into_inner();
        self.with_service(move |s| tables::create(s, &request))
            .await
    }

    async fn list_tables(
        &self,
        request: Request<pb::ListTablesRequest>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        let request = request.into_inner();
        self.with_service(move |s| tables::list(s, &request)).await
    }

    async fn get_table(
        &self,
        request: Request<pb::GetTableRequest>,
    ) -> Result<Response<pb::Table>, Status> {
        let request = request.into_inner();
        self.with_service(move |s| tables::get(s, &request)).await
    }

    async fn delete_table(
        &self,
        request: Request<pb::DeleteTableRequest>,
    ) -> Result<Response<()>, Status> {
        let table = crate::names::table_of("name", &request.get_ref().name)?;
        let service = Arc::clone(&self.service);
        // Bigtable deletes an enabled table in one call; HBase wants it disabled first.
        blocking(move || {
            if service.admin().is_table_enabled(&table)? {
                service.admin().disable_table(&table)?;
            }
            service.admin().delete_table(&table)
        })
        .await?;
        Ok(Response::new(()))
    }

    async fn modify_column_families(
        &self,
        request: Request<pb::ModifyColumnFamiliesRequest>,
    ) -> Result<Response<pb::Table>, Status> {
        let request = request.into_inner();
        let table = crate::names::table_of("name", &request.name)?;
        self.with_service(move |s| {
            let current = s
                .admin()
                .describe_table(&table)
                .map_err(crate::error::status)?;
            let ops = families::plan(&table, &current.families, &request.modifications)?;
            families::apply(s, &table, ops)?;
            tables::get(
                s,
                &pb::GetTableRequest {
                    name: request.name.clone(),
                    view: pb::table::View::SchemaView as i32,
                },
            )
        })
        .await
    }

    async fn drop_row_range(
        &self,
        request: Request<pb::DropRowRangeRequest>,
    ) -> Result<Response<()>, Status> {
        let request = request.into_inner();
        let table = crate::names::table_of("name", &request.name)?;
        self.with_service(move |s| drop_range::drop_range(s, &table, request.target.as_ref()))
            .await
    }

    async fn generate_consistency_token(
        &self,
        request: Request<pb::GenerateConsistencyTokenRequest>,
    ) -> Result<Response<pb::GenerateConsistencyTokenResponse>, Status> {
        let table = crate::names::table_of("name", &request.get_ref().name)?;
        self.with_service(move |s| {
            Ok(pb::GenerateConsistencyTokenResponse {
                consistency_token: consistency::generate(s, &table)?,
            })
        })
        .await
    }

    async fn check_consistency(
        &self,
        request: Request<pb::CheckConsistencyRequest>,
    ) -> Result<Response<pb::CheckConsistencyResponse>, Status> {
        let request = request.into_inner();
        let table = crate::names::table_of("name", &request.name)?;
        self.with_service(move |s| {
            Ok(pb::CheckConsistencyResponse {
                consistent: consistency::check(s, &table, &request.consistency_token)?,
            })
        })
        .await
    }
}

#[cfg(test)]
mod service_tests;
