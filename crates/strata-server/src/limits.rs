//! The request limits every API enforces through the service, in one table. Each field is a
//! key of the server configuration's `[limits]` section (named by the `*_KEY` constants);
//! going over one is a [`ServiceError::LimitExceeded`] that names its key, so a client or an
//! operator can tell which setting to change. `docs/reliability.md` ("Limits") lists them
//! with their defaults and the error each API answers.

use std::collections::HashSet;

use strata_engine::Cell;

use crate::error::{LimitClass, Result, ServiceError};

const MIB: usize = 1 << 20;

/// Which API family's size rules a write follows: the value-size limit differs (HBase's
/// `hbase.server.keyvalue.maxsize` is 10 MiB; Bigtable accepts cells of up to 100 MiB and its
/// clients send them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Thrift, REST and the embedded API.
    Hbase,
    /// The gRPC (Cloud Bigtable) API.
    Bigtable,
}

/// Limits on requests, held by the service and set through `ServiceOptions::limits`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Longest row key (HBase: Short.MAX_VALUE; the engine cannot store longer ones).
    pub max_row_key_bytes: usize,
    /// Longest column qualifier.
    pub max_qualifier_bytes: usize,
    /// Largest cell value written through Thrift, REST or the embedded API.
    pub max_value_bytes: usize,
    /// Largest cell value written through the gRPC (Bigtable) API.
    pub grpc_max_value_bytes: usize,
    /// Most cells one mutation request (one row or a batch of rows) may write.
    pub max_cells_per_request: usize,
    /// Most distinct rows one batch mutation may write.
    pub max_rows_per_request: usize,
    /// Most scanners open at once over every connection (an abandoned one counts until its
    /// lease expires).
    pub max_open_scanners: usize,
    /// Most scanners one client may hold open (a Thrift connection, a REST client's
    /// address), so one client cannot take every `max_open_scanners` slot. Scanner ids still
    /// work from any connection, as in HBase; the client that opened one is charged for it
    /// until it is closed or expires.
    pub max_scanners_per_client: usize,
    /// Longest filter-language string (Thrift and REST scanner filters).
    pub filter_max_bytes: usize,
    /// Deepest nesting of parentheses and SKIP/WHILE in a filter string.
    pub filter_max_depth: usize,
    /// Longest `regexstring:` pattern in a filter string.
    pub filter_regex_max_bytes: usize,
    /// Most bytes that accepted writes may hold while they wait for memstore room, over
    /// every connection and API; a write past it is refused as too busy (see
    /// `write_budget.rs`).
    pub max_write_bytes_in_flight: usize,
    /// Most bytes that requests being received and served may hold, over every connection;
    /// a reader waits for room before reading more (see `request_budget.rs`).
    pub max_request_bytes_in_flight: usize,
}

/// Config keys, as named in errors and in the `[limits]` section.
pub const MAX_ROW_KEY_BYTES_KEY: &str = "max_row_key_bytes";
pub const MAX_QUALIFIER_BYTES_KEY: &str = "max_qualifier_bytes";
pub const MAX_VALUE_BYTES_KEY: &str = "max_value_bytes";
pub const GRPC_MAX_VALUE_BYTES_KEY: &str = "grpc_max_value_bytes";
pub const MAX_CELLS_PER_REQUEST_KEY: &str = "max_cells_per_request";
pub const MAX_ROWS_PER_REQUEST_KEY: &str = "max_rows_per_request";
pub const MAX_OPEN_SCANNERS_KEY: &str = "max_open_scanners";
pub const FILTER_MAX_BYTES_KEY: &str = "filter_max_bytes";
pub const FILTER_MAX_DEPTH_KEY: &str = "filter_max_depth";
pub const FILTER_REGEX_MAX_BYTES_KEY: &str = "filter_regex_max_bytes";
pub const MAX_WRITE_BYTES_IN_FLIGHT_KEY: &str = "max_write_bytes_in_flight";
pub const MAX_REQUEST_BYTES_IN_FLIGHT_KEY: &str = "max_request_bytes_in_flight";
pub const MAX_SCANNERS_PER_CLIENT_KEY: &str = "max_scanners_per_client";

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_row_key_bytes: strata_engine::MAX_ROW_LEN,
            max_qualifier_bytes: 64 * 1024,
            max_value_bytes: 10 * MIB,
            grpc_max_value_bytes: 100 * MIB,
            // Bigtable's cap on mutations (and entries) per request.
            max_cells_per_request: 100_000,
            max_rows_per_request: 100_000,
            max_open_scanners: 10_000,
            // A tenth of `max_open_scanners` (HBase has no such cap).
            max_scanners_per_client: 1000,
            filter_max_bytes: crate::filter::MAX_FILTER_LEN,
            filter_max_depth: crate::filter::MAX_DEPTH,
            filter_regex_max_bytes: crate::filter::MAX_REGEX_LEN,
            // HBase bounds its call queue at 1 GiB; a quarter of that keeps a standalone
            // server's waiting writes well inside a small machine's memory.
            max_write_bytes_in_flight: 256 * MIB,
            // Room for a few largest (16 MiB) Thrift requests at once, or hundreds of
            // ordinary ones; more only queues on the sockets.
            max_request_bytes_in_flight: 64 * MIB,
        }
    }
}

impl Limits {
    /// Checks settings that cannot go above what the code can safely hold: the engine's row
    /// key format and the filter parser's recursion and regex compile caps. Returns the
    /// offending key and why.
    pub fn validate(&self) -> std::result::Result<(), String> {
        let ceilings = [
            (
                MAX_ROW_KEY_BYTES_KEY,
                self.max_row_key_bytes,
                strata_engine::MAX_ROW_LEN,
            ),
            (
                FILTER_MAX_BYTES_KEY,
                self.filter_max_bytes,
                crate::filter::MAX_FILTER_LEN,
            ),
            (
                FILTER_MAX_DEPTH_KEY,
                self.filter_max_depth,
                crate::filter::MAX_DEPTH,
            ),
            (
                FILTER_REGEX_MAX_BYTES_KEY,
                self.filter_regex_max_bytes,
                crate::filter::MAX_REGEX_LEN,
            ),
        ];
        for (key, value, ceiling) in ceilings {
            if value > ceiling {
                return Err(format!(
                    "limits.{key} = {value} is above its ceiling of {ceiling}"
                ));
            }
        }
        Ok(())
    }

    /// The value-size limit of `dialect`, with its config key.
    fn value_limit(&self, dialect: Dialect) -> (&'static str, usize) {
        match dialect {
            Dialect::Hbase => (MAX_VALUE_BYTES_KEY, self.max_value_bytes),
            Dialect::Bigtable => (GRPC_MAX_VALUE_BYTES_KEY, self.grpc_max_value_bytes),
        }
    }

    /// Checks the cells of one write request against every size limit.
    pub fn check_cells(&self, cells: &[Cell], dialect: Dialect) -> Result<()> {
        over(
            MAX_CELLS_PER_REQUEST_KEY,
            cells.len(),
            self.max_cells_per_request,
        )?;
        let (value_key, max_value) = self.value_limit(dialect);
        for cell in cells {
            over(
                MAX_ROW_KEY_BYTES_KEY,
                cell.row.len(),
                self.max_row_key_bytes,
            )?;
            over(
                MAX_QUALIFIER_BYTES_KEY,
                cell.qualifier.len(),
                self.max_qualifier_bytes,
            )?;
            over(value_key, cell.value.len(), max_value)?;
        }
        if cells.len() > self.max_rows_per_request {
            let rows: HashSet<&[u8]> = cells.iter().map(|c| c.row.as_ref()).collect();
            over(
                MAX_ROWS_PER_REQUEST_KEY,
                rows.len(),
                self.max_rows_per_request,
            )?;
        }
        Ok(())
    }

    /// The filter-language caps.
    pub fn filter(&self) -> crate::filter::FilterLimits {
        crate::filter::FilterLimits {
            max_bytes: self.filter_max_bytes,
            max_depth: self.filter_max_depth,
            regex_max_bytes: self.filter_regex_max_bytes,
        }
    }

    /// Checks that one more scanner may open while `open` are.
    pub fn check_scanner_count(&self, open: usize) -> Result<()> {
        over(MAX_OPEN_SCANNERS_KEY, open + 1, self.max_open_scanners)
    }

    /// Checks that a client holding `held` scanners may open one more.
    pub fn check_client_scanner_count(&self, held: usize) -> Result<()> {
        over(
            MAX_SCANNERS_PER_CLIENT_KEY,
            held + 1,
            self.max_scanners_per_client,
        )
    }
}

/// What the limit named `limit` bounds: the server's capacity (open scanners: a client may
/// retry later), how much one request carries (value bytes, cells, rows), or else the
/// request's shape (a key or qualifier too long is a malformed request).
pub fn class_of(limit: &str) -> LimitClass {
    let payload = [
        MAX_VALUE_BYTES_KEY,
        GRPC_MAX_VALUE_BYTES_KEY,
        MAX_CELLS_PER_REQUEST_KEY,
        MAX_ROWS_PER_REQUEST_KEY,
    ];
    if limit == MAX_OPEN_SCANNERS_KEY || limit == MAX_SCANNERS_PER_CLIENT_KEY {
        LimitClass::Capacity
    } else if payload.contains(&limit) {
        LimitClass::Payload
    } else {
        LimitClass::Shape
    }
}

/// `LimitExceeded` when `value` is above `max`.
fn over(limit: &'static str, value: usize, max: usize) -> Result<()> {
    if value > max {
        return Err(ServiceError::LimitExceeded {
            limit,
            value: value as u64,
            max: max as u64,
            class: class_of(limit),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_within_their_ceilings() {
        assert_eq!(Limits::default().validate(), Ok(()));
    }

    #[test]
    fn a_setting_above_its_ceiling_is_refused_by_name() {
        let limits = Limits {
            filter_max_depth: 10_000,
            ..Limits::default()
        };
        let e = limits.validate().unwrap_err();
        assert!(e.contains("limits.filter_max_depth"), "{e}");
    }

    #[test]
    fn the_value_limit_depends_on_the_dialect() {
        let limits = Limits {
            max_value_bytes: 4,
            grpc_max_value_bytes: 8,
            ..Limits::default()
        };
        let cell = Cell::put("r", "f", "q", 1, vec![0u8; 6]);
        let e = limits
            .check_cells(std::slice::from_ref(&cell), Dialect::Hbase)
            .unwrap_err();
        assert!(e.to_string().contains("limits.max_value_bytes"), "{e}");
        limits.check_cells(&[cell], Dialect::Bigtable).unwrap();
    }

    #[test]
    fn rows_are_counted_only_when_distinct() {
        let limits = Limits {
            max_rows_per_request: 1,
            ..Limits::default()
        };
        let same_row = [
            Cell::put("r", "f", "a", 1, "v"),
            Cell::put("r", "f", "b", 1, "v"),
        ];
        limits.check_cells(&same_row, Dialect::Hbase).unwrap();
        let two_rows = [
            Cell::put("r", "f", "a", 1, "v"),
            Cell::put("s", "f", "a", 1, "v"),
        ];
        let e = limits.check_cells(&two_rows, Dialect::Hbase).unwrap_err();
        assert!(e.to_string().contains("limits.max_rows_per_request"), "{e}");
    }
}
