//! Write requests: [`Put`], [`Delete`] (HBase's four delete kinds), [`Append`], and the
//! [`Mutation`] of a batch.

use bytes::Bytes;
use strata_engine::{Cell, CellType, Durability, LATEST_TIMESTAMP};

use crate::error::{Error, Result};

/// Writes values into one row. Columns without a timestamp get the put's (by default the
/// current time when the write is applied).
///
/// ```
/// use strata_db::Put;
/// let put = Put::new("row1").add("cf", "a", "1").add_at("cf", "b", 42, "2");
/// # let _ = put;
/// ```
#[derive(Debug, Clone)]
pub struct Put {
    row: Bytes,
    timestamp: i64,
    columns: Vec<(Bytes, Bytes, Option<i64>, Bytes)>,
    durability: Option<Durability>,
}

impl Put {
    /// A put into `row`.
    pub fn new(row: impl Into<Bytes>) -> Self {
        Put {
            row: row.into(),
            timestamp: LATEST_TIMESTAMP,
            columns: Vec::new(),
            durability: None,
        }
    }

    /// The timestamp of columns added without one (milliseconds).
    pub fn timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = timestamp;
        self
    }

    /// Sets one column.
    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Self {
        let column = (family.into(), qualifier.into(), None, value.into());
        self.columns.push(column);
        self
    }

    /// Sets one version of one column at `timestamp`.
    pub fn add_at(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
        value: impl Into<Bytes>,
    ) -> Self {
        let column = (
            family.into(),
            qualifier.into(),
            Some(timestamp),
            value.into(),
        );
        self.columns.push(column);
        self
    }

    /// Durability of this write (default: the table handle's).
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = Some(durability);
        self
    }

    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }

    pub(crate) fn into_cells(self) -> Result<Vec<Cell>> {
        if self.columns.is_empty() {
            return Err(Error::InvalidArgument(
                "a put needs at least one column".into(),
            ));
        }
        let row = self.row;
        let default_ts = self.timestamp;
        Ok(self
            .columns
            .into_iter()
            .map(|(f, q, ts, v)| Cell::put(row.clone(), f, q, ts.unwrap_or(default_ts), v))
            .collect())
    }
}

/// What a [`Delete`] removes from its row.
#[derive(Debug, Clone)]
enum Target {
    /// The newest version of a column (HBase `addColumn(f, q)`).
    LatestVersion(Bytes, Bytes),
    /// Exactly one version of a column (`addColumn(f, q, ts)`).
    Version(Bytes, Bytes, i64),
    /// Every version of a column at or below a timestamp (`addColumns`).
    AllVersions(Bytes, Bytes, Option<i64>),
    /// Every column of a family at or below a timestamp (`addFamily`).
    Family(Bytes, Option<i64>),
    /// One timestamp in every column of a family (`addFamilyVersion`).
    FamilyVersion(Bytes, i64),
}

/// Deletes from one row with HBase's delete kinds. A delete with no column or family
/// removes the whole row (every family at or below its timestamp).
///
/// ```
/// use strata_db::Delete;
/// let whole_row = Delete::new("row1");
/// let some = Delete::new("row2")
///     .column("cf", "a")           // newest version of cf:a
///     .all_versions("cf", "b")     // every version of cf:b
///     .column_version("cf", "c", 7) // the version of cf:c at 7
///     .family("other");            // the whole family
/// # let _ = (whole_row, some);
/// ```
#[derive(Debug, Clone)]
pub struct Delete {
    row: Bytes,
    timestamp: i64,
    targets: Vec<Target>,
    durability: Option<Durability>,
}

impl Delete {
    /// A delete in `row`.
    pub fn new(row: impl Into<Bytes>) -> Self {
        Delete {
            row: row.into(),
            timestamp: LATEST_TIMESTAMP,
            targets: Vec::new(),
            durability: None,
        }
    }

    /// The timestamp that whole-row, family and all-versions deletes without their own reach
    /// up to (inclusive; default: the current time).
    pub fn up_to(mut self, timestamp: i64) -> Self {
        self.timestamp = timestamp;
        self
    }

    /// Deletes the newest version of a column (older versions become visible again).
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        let target = Target::LatestVersion(family.into(), qualifier.into());
        self.targets.push(target);
        self
    }

    /// Deletes the version of a column at exactly `timestamp`.
    pub fn column_version(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
    ) -> Self {
        let target = Target::Version(family.into(), qualifier.into(), timestamp);
        self.targets.push(target);
        self
    }

    /// Deletes every version of a column (at or below the delete's timestamp).
    pub fn all_versions(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        let target = Target::AllVersions(family.into(), qualifier.into(), None);
        self.targets.push(target);
        self
    }

    /// Deletes every version of a column at or below `timestamp`.
    pub fn all_versions_up_to(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
    ) -> Self {
        let target = Target::AllVersions(family.into(), qualifier.into(), Some(timestamp));
        self.targets.push(target);
        self
    }

    /// Deletes every column of a family (at or below the delete's timestamp).
    pub fn family(mut self, family: impl Into<Bytes>) -> Self {
        self.targets.push(Target::Family(family.into(), None));
        self
    }

    /// Deletes every column of a family at or below `timestamp`.
    pub fn family_up_to(mut self, family: impl Into<Bytes>, timestamp: i64) -> Self {
        self.targets
            .push(Target::Family(family.into(), Some(timestamp)));
        self
    }

    /// Deletes the versions at exactly `timestamp` in every column of a family.
    pub fn family_version(mut self, family: impl Into<Bytes>, timestamp: i64) -> Self {
        self.targets
            .push(Target::FamilyVersion(family.into(), timestamp));
        self
    }

    /// Durability of this write (default: the table handle's).
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = Some(durability);
        self
    }

    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }

    /// The delete markers; a whole-row delete gets one family marker per family of
    /// `families`.
    pub(crate) fn into_cells(self, families: &[Vec<u8>]) -> Vec<Cell> {
        let (row, up_to) = (self.row, self.timestamp);
        let marker =
            |f: Bytes, q: Bytes, ts: i64, kind: CellType| Cell::delete(row.clone(), f, q, ts, kind);
        if self.targets.is_empty() {
            return families
                .iter()
                .map(|f| {
                    marker(
                        Bytes::copy_from_slice(f),
                        Bytes::new(),
                        up_to,
                        CellType::DeleteFamily,
                    )
                })
                .collect();
        }
        self.targets
            .into_iter()
            .map(|t| match t {
                Target::LatestVersion(f, q) => marker(f, q, LATEST_TIMESTAMP, CellType::Delete),
                Target::Version(f, q, ts) => marker(f, q, ts, CellType::Delete),
                Target::AllVersions(f, q, ts) => {
                    marker(f, q, ts.unwrap_or(up_to), CellType::DeleteColumn)
                }
                Target::Family(f, ts) => {
                    marker(f, Bytes::new(), ts.unwrap_or(up_to), CellType::DeleteFamily)
                }
                Target::FamilyVersion(f, ts) => {
                    marker(f, Bytes::new(), ts, CellType::DeleteFamilyVersion)
                }
            })
            .collect()
    }
}

/// True for a marker that deletes "the newest version": its timestamp is resolved by the
/// service under the row lock.
pub(crate) fn is_latest_version_delete(cell: &Cell) -> bool {
    cell.cell_type == CellType::Delete && cell.timestamp == LATEST_TIMESTAMP
}

/// Appends bytes to the values of columns of one row, atomically.
///
/// ```
/// use strata_db::Append;
/// let append = Append::new("row1").add("cf", "log", ",event");
/// # let _ = append;
/// ```
#[derive(Debug, Clone)]
pub struct Append {
    pub(crate) row: Bytes,
    pub(crate) columns: Vec<(Bytes, Bytes, Bytes)>,
}

impl Append {
    /// An append in `row`.
    pub fn new(row: impl Into<Bytes>) -> Self {
        Append {
            row: row.into(),
            columns: Vec::new(),
        }
    }

    /// Appends `suffix` to one column's value (a missing column counts as empty).
    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        suffix: impl Into<Bytes>,
    ) -> Self {
        self.columns
            .push((family.into(), qualifier.into(), suffix.into()));
        self
    }
}

/// One write of a batch.
#[derive(Debug, Clone)]
pub enum Mutation {
    /// Writes values.
    Put(Put),
    /// Deletes.
    Delete(Delete),
}

impl Mutation {
    /// The row the mutation writes.
    pub fn row(&self) -> &[u8] {
        match self {
            Mutation::Put(p) => p.row(),
            Mutation::Delete(d) => d.row(),
        }
    }

    pub(crate) fn durability(&self) -> Option<Durability> {
        match self {
            Mutation::Put(p) => p.durability,
            Mutation::Delete(d) => d.durability,
        }
    }

    pub(crate) fn into_cells(self, families: &[Vec<u8>]) -> Result<Vec<Cell>> {
        match self {
            Mutation::Put(p) => p.into_cells(),
            Mutation::Delete(d) => Ok(d.into_cells(families)),
        }
    }
}

impl From<Put> for Mutation {
    fn from(p: Put) -> Self {
        Mutation::Put(p)
    }
}

impl From<Delete> for Mutation {
    fn from(d: Delete) -> Self {
        Mutation::Delete(d)
    }
}
