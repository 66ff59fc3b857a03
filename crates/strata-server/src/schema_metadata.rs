//! What a table's or family's [`SchemaMetadata`] may hold: any attribute or configuration
//! entry Strata keeps without acting on it, but not one of the settings Strata does act on
//! (those have fields of their own, and one value must not be stored twice), and a
//! REPLICATION_SCOPE only of 0: HBase's default, no replication, which is all Strata does.

use strata_engine::{FamilyOptions, SchemaMetadata};

use crate::error::{Result, ServiceError};

/// The family attribute naming the replication scope (0: none, 1: global).
pub const REPLICATION_SCOPE: &str = "REPLICATION_SCOPE";

/// Family attributes Strata interprets: they are [`FamilyOptions`] fields.
const FAMILY_SETTINGS: [&str; 13] = [
    "NAME",
    "VERSIONS",
    "MIN_VERSIONS",
    "TTL",
    "KEEP_DELETED_CELLS",
    "BLOCKSIZE",
    "COMPRESSION",
    "DATA_BLOCK_ENCODING",
    "BLOOMFILTER",
    "BLOCKCACHE",
    "IN_MEMORY",
    "STORAGE_POLICY",
    "ROW_CACHE",
];

/// Table attributes Strata interprets: DURABILITY is the descriptor's own field.
const TABLE_SETTINGS: [&str; 1] = ["DURABILITY"];

/// Accepts a REPLICATION_SCOPE of 0 (as HBase writes it, `0`, or with spaces or a sign);
/// refuses any other scope, since there is no replication to scope.
pub fn check_replication_scope(text: &str) -> Result<()> {
    match text.trim().parse::<i64>() {
        Ok(0) => Ok(()),
        Ok(scope) => Err(ServiceError::InvalidArgument(format!(
            "REPLICATION_SCOPE {scope} is not supported: Strata does not replicate \
             (only 0, HBase's default, is accepted)"
        ))),
        Err(_) => Err(ServiceError::InvalidArgument(format!(
            "REPLICATION_SCOPE must be a number, got {text:?}"
        ))),
    }
}

/// Checks a family's metadata (see the module comment).
pub(crate) fn check_family(family: &FamilyOptions) -> Result<()> {
    let owner = format!("column family {}", String::from_utf8_lossy(&family.name));
    refuse_settings(&family.metadata, &FAMILY_SETTINGS, &owner)?;
    match family.metadata.attributes.get(REPLICATION_SCOPE.as_bytes()) {
        Some(scope) => check_replication_scope(&String::from_utf8_lossy(scope)),
        None => Ok(()),
    }
}

/// Checks a table's own metadata (see the module comment).
pub(crate) fn check_table(metadata: &SchemaMetadata) -> Result<()> {
    refuse_settings(metadata, &TABLE_SETTINGS, "the table")
}

fn refuse_settings(metadata: &SchemaMetadata, settings: &[&str], owner: &str) -> Result<()> {
    let interpreted = metadata
        .attributes
        .keys()
        .find_map(|key| settings.iter().find(|s| s.as_bytes() == key.as_ref()));
    match interpreted {
        Some(setting) => Err(ServiceError::InvalidArgument(format!(
            "{setting} of {owner} is a setting of its own, not a metadata attribute"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    fn family_with(key: &str, value: &str) -> FamilyOptions {
        let mut f = FamilyOptions::new("cf");
        f.metadata.attributes.insert(
            Bytes::copy_from_slice(key.as_bytes()),
            Bytes::copy_from_slice(value.as_bytes()),
        );
        f
    }

    #[test]
    fn replication_scope_zero_is_accepted_and_others_refused() {
        for zero in ["0", " 0", "+0", "-0"] {
            assert!(
                check_family(&family_with(REPLICATION_SCOPE, zero)).is_ok(),
                "{zero}"
            );
        }
        let err = check_family(&family_with(REPLICATION_SCOPE, "1")).unwrap_err();
        assert!(
            err.to_string()
                .contains("REPLICATION_SCOPE 1 is not supported"),
            "{err}"
        );
        let err = check_replication_scope("global").unwrap_err();
        assert!(err.to_string().contains("must be a number"), "{err}");
    }

    #[test]
    fn uninterpreted_keys_are_kept_and_interpreted_ones_refused() {
        assert!(check_family(&family_with("user.key", "v")).is_ok());
        let err = check_family(&family_with("VERSIONS", "3")).unwrap_err();
        assert!(
            err.to_string().contains("VERSIONS of column family cf"),
            "{err}"
        );
        let mut table = SchemaMetadata::default();
        table.attributes.insert(
            Bytes::from_static(b"SPLIT_POLICY"),
            Bytes::from_static(b"x"),
        );
        assert!(check_table(&table).is_ok());
        table.attributes.insert(
            Bytes::from_static(b"DURABILITY"),
            Bytes::from_static(b"ASYNC_WAL"),
        );
        assert!(check_table(&table).is_err());
    }
}
