//! Column families: Bigtable's `ColumnFamily` messages as HBase family settings, and
//! ModifyColumnFamilies as a list of the service layer's schema changes.
//!
//! A whole request is checked against the table's current schema, modification by
//! modification, before anything is changed, so a bad modification anywhere in the list
//! leaves the table untouched. Applying then runs the service's changes in order: adding or
//! dropping a family needs a disabled table in HBase, so the table is disabled around those
//! (Bigtable changes families online) and enabled again; its data stays. While that runs
//! (milliseconds: the regions are flushed and reopened) reads and writes of the table fail
//! with FAILED_PRECONDITION.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2::{
    modify_column_families_request::{modification::Mod, Modification},
    ColumnFamily,
};
use strata_engine::FamilyOptions;
use strata_server::{AlterOp, Service, TableName};
use tonic::Status;

use super::gc_rule::{family_rule, rule_to_keep, settings_from_rule};

/// Bigtable's longest column family id.
const MAX_FAMILY_ID_LEN: usize = 64;

/// Checks a new family id against Bigtable's pattern `[_a-zA-Z0-9][-_.a-zA-Z0-9]*` (HBase
/// allows more; Bigtable clients expect these rules).
pub fn check_family_id(field: &str, id: &str) -> Result<(), Status> {
    let valid_first = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let valid_rest = |c: char| valid_first(c) || c == '-' || c == '.';
    let mut chars = id.chars();
    let shaped = chars.next().is_some_and(valid_first) && chars.all(valid_rest);
    if !shaped || id.len() > MAX_FAMILY_ID_LEN {
        return Err(Status::invalid_argument(format!(
            "{field}: column family id {id:?} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at \
             most {MAX_FAMILY_ID_LEN} characters"
        )));
    }
    Ok(())
}

/// A new family's HBase settings from its Bigtable message; `field` names the message.
pub fn family_from_message(
    field: &str,
    id: &str,
    family: &ColumnFamily,
) -> Result<FamilyOptions, Status> {
    check_family_id(field, id)?;
    refuse_value_type(field, family)?;
    let mut options = FamilyOptions::new(id.as_bytes().to_vec());
    set_gc_rule(&mut options, family, field)?;
    Ok(options)
}

/// Gives `options` the HBase settings of the message's GC rule, and keeps the rule itself
/// so that GetTable returns it as given.
fn set_gc_rule(
    options: &mut FamilyOptions,
    family: &ColumnFamily,
    field: &str,
) -> Result<(), Status> {
    let rule = family.gc_rule.as_ref();
    settings_from_rule(rule, &format!("{field}.gc_rule"))?.apply_to(options);
    options.bigtable_gc_rule = rule_to_keep(rule);
    Ok(())
}

fn refuse_value_type(field: &str, family: &ColumnFamily) -> Result<(), Status> {
    if family.value_type.is_some() {
        return Err(Status::invalid_argument(format!(
            "{field}.value_type: typed (aggregate) column families are not supported"
        )));
    }
    Ok(())
}

/// The Bigtable message for an existing family (its GC rule: see `family_rule`).
pub fn family_message(family: &FamilyOptions) -> ColumnFamily {
    ColumnFamily {
        gc_rule: family_rule(family),
        value_type: None,
    }
}

/// The Bigtable families of a table, by id.
pub fn family_messages(families: &[FamilyOptions]) -> HashMap<String, ColumnFamily> {
    families
        .iter()
        .map(|f| {
            (
                String::from_utf8_lossy(&f.name).into_owned(),
                family_message(f),
            )
        })
        .collect()
}

/// Checks every modification against `current` (in order) and returns the schema changes
/// that carry them out.
pub fn plan(
    table: &TableName,
    current: &[FamilyOptions],
    modifications: &[Modification],
) -> Result<Vec<AlterOp>, Status> {
    if modifications.is_empty() {
        return Err(Status::invalid_argument(
            "modifications: at least one modification is needed",
        ));
    }
    let mut families = current.to_vec();
    let mut ops = Vec::with_capacity(modifications.len());
    for (i, m) in modifications.iter().enumerate() {
        let field = format!("modifications[{i}]");
        let op = plan_one(table, &families, m, &field)?;
        apply_to_schema(&mut families, &op);
        ops.push(op);
    }
    Ok(ops)
}

fn plan_one(
    table: &TableName,
    families: &[FamilyOptions],
    m: &Modification,
    field: &str,
) -> Result<AlterOp, Status> {
    if m.id.is_empty() {
        return Err(Status::invalid_argument(format!(
            "{field}.id: a column family id is needed"
        )));
    }
    let existing = families.iter().find(|f| f.name == m.id.as_bytes());
    let not_found = || {
        Status::not_found(format!(
            "{field}.id: column family {} does not exist in {table}",
            m.id
        ))
    };
    match &m.r#mod {
        Some(Mod::Create(family)) => {
            if existing.is_some() {
                return Err(Status::already_exists(format!(
                    "{field}.create: column family {} already exists in {table}",
                    m.id
                )));
            }
            let options = family_from_message(&format!("{field}.create"), &m.id, family)?;
            Ok(AlterOp::AddFamily(options))
        }
        Some(Mod::Update(family)) => {
            let mut options = existing.ok_or_else(not_found)?.clone();
            let update = format!("{field}.update");
            refuse_value_type(&update, family)?;
            check_update_mask(field, m)?;
            set_gc_rule(&mut options, family, &update)?;
            Ok(AlterOp::ModifyFamily(options))
        }
        Some(Mod::Drop(true)) => {
            existing.ok_or_else(not_found)?;
            Ok(AlterOp::DeleteFamily(Bytes::from(
                m.id.clone().into_bytes(),
            )))
        }
        Some(Mod::Drop(false)) => Err(Status::invalid_argument(format!(
            "{field}.drop: must be true to drop the family"
        ))),
        None => Err(Status::invalid_argument(format!(
            "{field}: one of create, update or drop is needed"
        ))),
    }
}

/// Only the GC rule of a family can be updated.
fn check_update_mask(field: &str, m: &Modification) -> Result<(), Status> {
    let Some(mask) = &m.update_mask else {
        return Ok(());
    };
    match mask.paths.iter().find(|p| p.as_str() != "gc_rule") {
        Some(other) => Err(Status::invalid_argument(format!(
            "{field}.update_mask: only gc_rule can be updated, not {other:?}"
        ))),
        None => Ok(()),
    }
}

fn apply_to_schema(families: &mut Vec<FamilyOptions>, op: &AlterOp) {
    match op {
        AlterOp::AddFamily(f) => families.push(f.clone()),
        AlterOp::ModifyFamily(f) => {
            if let Some(slot) = families.iter_mut().find(|x| x.name == f.name) {
                *slot = f.clone();
            }
        }
        AlterOp::DeleteFamily(name) => families.retain(|f| f.name != name.as_ref()),
        // Bigtable's modifications never plan these (its Table has neither field).
        AlterOp::SetDurability(_) | AlterOp::SetMetadata(_) => {}
    }
}

/// Carries out planned changes in order, disabling the table around additions and drops
/// (and enabling it again whatever happens, if it was enabled before).
pub fn apply(service: &Arc<Service>, table: &TableName, ops: Vec<AlterOp>) -> Result<(), Status> {
    let reopens = ops
        .iter()
        .any(|op| matches!(op, AlterOp::AddFamily(_) | AlterOp::DeleteFamily(_)));
    let was_enabled = service
        .admin()
        .is_table_enabled(table)
        .map_err(crate::error::status)?;
    let toggle = reopens && was_enabled;
    if toggle {
        service
            .admin()
            .disable_table(table)
            .map_err(crate::error::status)?;
    }
    let applied = ops
        .into_iter()
        .try_for_each(|op| service.admin().alter_table(table, op));
    let enabled = if toggle {
        service.admin().enable_table(table)
    } else {
        Ok(())
    };
    applied.and(enabled).map_err(crate::error::status)
}

#[cfg(test)]
mod tests;
