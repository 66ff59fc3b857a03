//! GenerateConsistencyToken and CheckConsistency.
//!
//! Bigtable uses these to wait until writes made before the token have replicated to every
//! cluster. Strata is one server and an acknowledged write is readable at once, so every
//! token is consistent as soon as it is issued. Like Google's emulator, a token is tied to
//! its table: a token that was not issued for the table is INVALID_ARGUMENT, and an unknown
//! table is NOT_FOUND.

use strata_server::{Service, TableName};
use tonic::Status;

/// Tokens are this prefix followed by the table's HBase name.
const TOKEN_PREFIX: &str = "strata-consistent:";

/// The token for `table`, which must exist.
pub fn generate(service: &Service, table: &TableName) -> Result<String, Status> {
    service
        .admin()
        .describe_table(table)
        .map_err(crate::error::status)?;
    Ok(format!("{TOKEN_PREFIX}{table}"))
}

/// True when `token` is consistent for `table` (always, once it is a token of `table`).
pub fn check(service: &Service, table: &TableName, token: &str) -> Result<bool, Status> {
    service
        .admin()
        .describe_table(table)
        .map_err(crate::error::status)?;
    if token.strip_prefix(TOKEN_PREFIX) != Some(table.to_string().as_str()) {
        return Err(Status::invalid_argument(format!(
            "consistency_token: {token:?} was not issued for table {table} by \
             GenerateConsistencyToken"
        )));
    }
    Ok(true)
}
