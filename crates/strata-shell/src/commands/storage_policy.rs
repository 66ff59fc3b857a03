//! A family's STORAGE_POLICY, which HBase takes in three places: a key of the family hash
//! (`{NAME => 'cf', STORAGE_POLICY => 'ALL_SSD'}`), its METADATA hash, or its CONFIGURATION
//! hash under `hbase.hstore.block.storage.policy`.

use super::args::Options;
use crate::error::{usage, Result};
use crate::value::Value;

pub const KEY: &str = "STORAGE_POLICY";
/// The family CONFIGURATION key HBase reads the policy from.
const CONFIGURATION_KEY: &str = "hbase.hstore.block.storage.policy";
/// HBase's policy names. A server may define more (`[[storage_policies]]`), so any name of
/// their shape goes to the server, which knows its own; this only catches what cannot be a
/// policy name at all.
const NAMES: [&str; 6] = ["ALL_SSD", "ONE_SSD", "HOT", "WARM", "COLD", "LAZY_PERSIST"];

/// Takes the policy out of `opts` from whichever place gives it; `Some("")` (given as `''`)
/// unsets it, so the family follows the server's policy again.
pub fn take(opts: &mut Options) -> Result<Option<String>> {
    let mut found = Vec::new();
    if let Some(name) = opts.take_string(KEY)? {
        found.push(name);
    }
    for (hash_key, policy_key) in [("METADATA", KEY), ("CONFIGURATION", CONFIGURATION_KEY)] {
        if let Some(value) = opts.take(hash_key) {
            found.extend(from_hash(hash_key, policy_key, &value)?);
        }
    }
    found.dedup();
    match found.as_slice() {
        [] => Ok(None),
        [name] => checked(name).map(Some),
        _ => Err(usage(format!("{KEY} is given twice: {}", found.join(", ")))),
    }
}

/// The policy in a METADATA or CONFIGURATION hash, which may hold nothing else.
fn from_hash(hash_key: &str, policy_key: &str, value: &Value) -> Result<Option<String>> {
    let pairs = value
        .as_hash()
        .ok_or_else(|| usage(format!("{hash_key} must be a hash")))?;
    let mut policy = None;
    for (key, value) in pairs {
        let key = key.key_text().unwrap_or_default();
        if key != policy_key {
            let msg = format!("{hash_key} key {key:?} is not supported (only {policy_key:?})");
            return Err(usage(msg));
        }
        let text = value
            .key_text()
            .ok_or_else(|| usage(format!("{policy_key} must be a String")))?;
        policy = Some(text);
    }
    Ok(policy)
}

/// The upper-case name, or a usage error listing the valid ones.
fn checked(name: &str) -> Result<String> {
    let upper = name.to_ascii_uppercase();
    let shaped = upper
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    if upper.len() <= 64 && shaped {
        return Ok(upper);
    }
    Err(usage(format!(
        "unknown {KEY} '{name}': expected one of {} or a policy the server defines",
        NAMES.join(", ")
    )))
}
