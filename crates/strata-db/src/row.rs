//! A row as reads return it.

use bytes::Bytes;
use strata_engine::{Cell, RowResult};

/// The cells of one row that a read returned, ordered by family, qualifier, then timestamp
/// (newest first), as HBase returns them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    key: Bytes,
    cells: Vec<Cell>,
}

impl Row {
    /// The row key.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// Every cell returned, in order.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The cells, owned.
    pub fn into_cells(self) -> Vec<Cell> {
        self.cells
    }

    /// The newest returned value of one column.
    pub fn value(&self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Option<&[u8]> {
        self.latest(family, qualifier).map(|c| c.value.as_ref())
    }

    /// The newest returned cell of one column.
    pub fn latest(&self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Option<&Cell> {
        self.versions(family, qualifier).next()
    }

    /// Every returned version of one column, newest first.
    pub fn versions(
        &self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
    ) -> impl Iterator<Item = &Cell> {
        let (family, qualifier) = (Bytes::copy_from_slice(family.as_ref()), qualifier);
        let qualifier = Bytes::copy_from_slice(qualifier.as_ref());
        self.cells
            .iter()
            .filter(move |c| c.family == family && c.qualifier == qualifier)
    }

    /// The newest value of a counter written by `increment` (8 bytes, big-endian); `None`
    /// when the column is missing or not 8 bytes wide.
    pub fn counter(&self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Option<i64> {
        let bytes: [u8; 8] = self.value(family, qualifier)?.try_into().ok()?;
        Some(i64::from_be_bytes(bytes))
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// True when no cell was returned.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

impl From<RowResult> for Row {
    fn from(r: RowResult) -> Self {
        Row {
            key: r.row,
            cells: r.cells,
        }
    }
}
