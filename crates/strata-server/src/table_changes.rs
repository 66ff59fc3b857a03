//! The changes an administrator makes to a table's schema and regions, as every layer
//! passes them along: the directory carries them out (`directory/schema.rs`,
//! `directory/regions.rs`), the splitter starts splits, and a server that is not master
//! sends them to the master (`remote/admin.rs`). They sit below all three so that none of
//! those modules imports another for a type.

use bytes::Bytes;
use strata_engine::FamilyOptions;

use crate::durability::WriteDurability;

/// One schema change.
#[derive(Debug, Clone, PartialEq)]
pub enum AlterOp {
    /// Adds a family (the table must be disabled).
    AddFamily(FamilyOptions),
    /// Replaces the settings of an existing family (online).
    ModifyFamily(FamilyOptions),
    /// Deletes a family and its data (the table must be disabled).
    DeleteFamily(Bytes),
    /// Sets the table's DURABILITY attribute (online).
    SetDurability(WriteDurability),
}

/// Which region to split, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitAt {
    /// This region, near the middle of its data.
    Region(u64),
    /// The region holding this row, at this row (it becomes the second daughter's start).
    Key(Bytes),
}
