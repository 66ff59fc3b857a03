//! CheckAndMutateRow: the predicate filter runs on the row under its lock, then the true or
//! the false mutations are applied atomically with the check.

use std::sync::Arc;
use strata_server::Dialect;

use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use strata_engine::Get;
use strata_server::{Service, ServiceError};
use tonic::Status;

use super::{cells, mutations, Target};
use crate::blocking::run;
use crate::row_filter::{RowFilter, Sampler};

pub async fn check_and_mutate_row(
    service: Arc<Service>,
    request: pb::CheckAndMutateRowRequest,
    mut sampler: impl Sampler + Send + 'static,
) -> Result<pb::CheckAndMutateRowResponse, Status> {
    let target = Target::resolve(&service, &request.table_name)?;
    let row = super::checked_row_key("row_key", &request.row_key)?;
    if request.true_mutations.is_empty() && request.false_mutations.is_empty() {
        return Err(Status::invalid_argument(
            "true_mutations, false_mutations: at least one must be given",
        ));
    }
    let table_name = target.display();
    let on_true = mutations::parse(
        "true_mutations",
        &request.true_mutations,
        &target.families,
        &table_name,
    )?;
    let on_false = mutations::parse(
        "false_mutations",
        &request.false_mutations,
        &target.families,
        &table_name,
    )?;
    // No predicate: the row matches if it has any cell, as Bigtable defines it.
    let predicate =
        RowFilter::compile_cached(request.predicate_filter.as_ref(), "predicate_filter")?;
    let matched = run(move || {
        let read = Get::new(row.clone()).versions(u32::MAX);
        service
            .rows()
            .read_modify_write_row_in(Dialect::Bigtable, &target.table, &read, |current, now| {
                let cells = current.clone().map(cells::filter_cells).unwrap_or_default();
                // A predicate over its evaluation budget is the caller's error, not "no match".
                let matched = !cells.is_empty()
                    && !predicate
                        .try_apply(&row, cells, &mut sampler)
                        .map_err(|s| ServiceError::InvalidArgument(s.message().to_string()))?
                        .is_empty();
                let ops = if matched { &on_true } else { &on_false };
                Ok((mutations::apply(&row, ops, current, now), matched))
            })
            .map_err(crate::error::status)
    })
    .await?;
    Ok(pb::CheckAndMutateRowResponse {
        predicate_matched: matched,
    })
}
