//! DropRowRange: drop every row with a prefix, or all of a table's data.
//!
//! All data: HBase's truncate preserving the splits (the table is disabled for the moment it
//! takes and enabled again; a table that was disabled stays disabled). A prefix: the service
//! layer's `drop_rows_with_prefix`, which deletes every cell of those rows whatever its
//! timestamp and leaves later writes to those rows visible (see its documentation for how
//! and what it costs).

use bytes::Bytes;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2::drop_row_range_request::Target;
use strata_server::{Service, TableName};
use tonic::Status;

/// Drops what `target` names from `table`.
pub fn drop_range(
    service: &Service,
    table: &TableName,
    target: Option<&Target>,
) -> Result<(), Status> {
    match target {
        Some(Target::RowKeyPrefix(prefix)) if prefix.is_empty() => Err(Status::invalid_argument(
            "row_key_prefix: must not be empty (use delete_all_data_from_table)",
        )),
        Some(Target::RowKeyPrefix(prefix)) => drop_prefix(service, table, prefix.clone()),
        Some(Target::DeleteAllDataFromTable(true)) => drop_all(service, table),
        Some(Target::DeleteAllDataFromTable(false)) => Err(Status::invalid_argument(
            "delete_all_data_from_table: must be true to drop all data",
        )),
        None => Err(Status::invalid_argument(
            "target: one of row_key_prefix or delete_all_data_from_table is needed",
        )),
    }
}

fn drop_prefix(service: &Service, table: &TableName, prefix: Bytes) -> Result<(), Status> {
    service
        .rows()
        .drop_rows_with_prefix(table, &prefix)
        .map_err(crate::error::status)
}

fn drop_all(service: &Service, table: &TableName) -> Result<(), Status> {
    let status = crate::error::status;
    let was_enabled = service.admin().is_table_enabled(table).map_err(status)?;
    if was_enabled {
        service.admin().disable_table(table).map_err(status)?;
    }
    // Truncate enables the table again.
    let truncated = service.admin().truncate_table(table, true);
    if truncated.is_err() && was_enabled {
        // Leave the table usable: it still holds its data.
        if let Err(e) = service.admin().enable_table(table) {
            tracing::warn!(table = %table, error = %e, "re-enabling after a failed truncate");
        }
    }
    truncated.map_err(status)?;
    if !was_enabled {
        service.admin().disable_table(table).map_err(status)?;
    }
    Ok(())
}
