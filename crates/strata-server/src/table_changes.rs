//! The changes an administrator makes to a table's schema and regions, as every layer
//! passes them along: the directory carries them out (`directory/schema.rs`,
//! `directory/regions.rs`), the splitter starts splits, and a server that is not master
//! sends them to the master (`remote/admin.rs`). They sit below all three so that none of
//! those modules imports another for a type.

use bytes::Bytes;
use strata_engine::{FamilyOptions, SchemaMetadata};

use crate::durability::WriteDurability;
use crate::table::TableDescriptor;

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
    /// Replaces the table's own metadata, its attributes and configuration (online).
    SetMetadata(SchemaMetadata),
}

/// Which region to split, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitAt {
    /// This region, near the middle of its data.
    Region(u64),
    /// The region holding this row, at this row (it becomes the second daughter's start).
    Key(Bytes),
}

/// The changes that turn table `from` into `to`, in an order each can be made in: table
/// settings, modified families, then added and deleted ones (those two need the table
/// disabled, so the online changes come first).
pub(crate) fn changes_between(from: &TableDescriptor, to: &TableDescriptor) -> Vec<AlterOp> {
    let mut ops = Vec::new();
    if from.durability != to.durability {
        ops.push(AlterOp::SetDurability(to.durability));
    }
    if from.metadata != to.metadata {
        ops.push(AlterOp::SetMetadata(to.metadata.clone()));
    }
    let old = |name: &[u8]| from.families.iter().find(|f| f.name == name);
    let mut added = Vec::new();
    for family in &to.families {
        match old(&family.name) {
            Some(current) if current == family => {}
            Some(_) => ops.push(AlterOp::ModifyFamily(family.clone())),
            None => added.push(AlterOp::AddFamily(family.clone())),
        }
    }
    ops.extend(added);
    for family in &from.families {
        if !to.families.iter().any(|f| f.name == family.name) {
            ops.push(AlterOp::DeleteFamily(Bytes::from(family.name.clone())));
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::TableName;

    #[test]
    fn changes_between_descriptors_online_ones_first() {
        let name = TableName::parse("t").unwrap();
        let mut from = TableDescriptor::new(name.clone(), vec![FamilyOptions::new("a")]);
        from.families.push(FamilyOptions::new("gone"));
        let mut to = from.clone();
        assert!(changes_between(&from, &to).is_empty());
        to.durability = WriteDurability::AsyncWal;
        to.metadata
            .attributes
            .insert(Bytes::from("SPLIT_POLICY"), Bytes::from("x"));
        to.families[0].max_versions = 3;
        to.families[1] = FamilyOptions::new("new");
        let ops = changes_between(&from, &to);
        assert_eq!(
            ops,
            vec![
                AlterOp::SetDurability(WriteDurability::AsyncWal),
                AlterOp::SetMetadata(to.metadata.clone()),
                AlterOp::ModifyFamily(to.families[0].clone()),
                AlterOp::AddFamily(FamilyOptions::new("new")),
                AlterOp::DeleteFamily(Bytes::from("gone")),
            ]
        );
    }
}
