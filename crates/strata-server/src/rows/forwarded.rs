//! The owner's side of a peer's conditional write (see `remote/`): the cells are applied
//! under the row's lock only if every read the peer computed them from still answers the
//! same here.

use strata_engine::Cell;

use super::locked_row::RowWrite;
use super::RowOperations;
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::remote::{ExpectedReads, Origin, PeerWrite};

impl RowOperations {
    /// Applies `cells` (all in `row`) if each read in `expected` answers the same now;
    /// returns whether it did. Served only from a region open here.
    pub(crate) fn mutate_if_unchanged(
        &self,
        table: &TableName,
        row: &[u8],
        expected: &ExpectedReads,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<bool> {
        if expected.iter().any(|(get, _)| get.row.as_ref() != row) {
            return Err(ServiceError::InvalidArgument(
                "a conditional write may only depend on reads of its own row".into(),
            ));
        }
        let write = RowWrite {
            dialect: write.dialect,
            durability: write.durability,
            origin: Origin::Peer,
        };
        let families = cells.iter().map(|c| c.family.as_ref());
        self.with_row(table, row, families, write, |locked| {
            for (get, answer) in expected {
                if locked.get(get)? != *answer {
                    return Ok((Vec::new(), false));
                }
            }
            Ok((cells.clone(), true))
        })
    }
}
