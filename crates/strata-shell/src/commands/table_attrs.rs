//! Table attributes of `create`, `alter` and `describe`: DURABILITY, and HBase 0.94's
//! DEFERRED_LOG_FLUSH (`true` is `ASYNC_WAL`, `false` `SYNC_WAL`, as HBase's shell maps it).
//!
//! HBase takes them in a hash of their own (`create 't', 'f', DURABILITY => 'ASYNC_WAL'`).
//! Scripts from HBase 0.94's days also wrote DEFERRED_LOG_FLUSH inside a family's hash
//! (`{NAME => 'f', DEFERRED_LOG_FLUSH => 'true'}`); both attributes are accepted there too
//! and still set the whole table's durability.

use bytes::Bytes;
use pilota::FastStr;
use strata_thrift::gen::volo_gen::hbase::Text;

use super::args::Options;
use crate::client::Client;
use crate::error::{usage, Result, ShellError};

/// HBase's durability names, in its order.
pub const DURABILITIES: [&str; 5] = [
    "USE_DEFAULT",
    "SKIP_WAL",
    "ASYNC_WAL",
    "SYNC_WAL",
    "FSYNC_WAL",
];

/// The attribute names `table_att_unset` can remove.
pub const UNSETTABLE: [&str; 2] = ["DURABILITY", "DEFERRED_LOG_FLUSH"];

/// `text` as one of HBase's durability names (any letter case), or a usage error naming them.
pub fn durability_name(text: &str) -> Result<&'static str> {
    DURABILITIES
        .into_iter()
        .find(|name| name.eq_ignore_ascii_case(text.trim()))
        .ok_or_else(|| {
            usage(format!(
                "unknown DURABILITY '{text}': expected one of {}",
                DURABILITIES.join(", ")
            ))
        })
}

/// The table attributes one command gives.
#[derive(Debug, Default)]
pub struct TableAttrs {
    pub durability: Option<&'static str>,
}

impl TableAttrs {
    /// Takes DURABILITY and DEFERRED_LOG_FLUSH out of `opts`; true if either was there.
    pub fn take_from(&mut self, opts: &mut Options) -> Result<bool> {
        let deferred = opts.take_bool("DEFERRED_LOG_FLUSH")?;
        let durability = opts
            .take_string("DURABILITY")?
            .map(|d| durability_name(&d))
            .transpose()?;
        let found = deferred.is_some() || durability.is_some();
        if let Some(deferred) = deferred {
            self.set(if deferred { "ASYNC_WAL" } else { "SYNC_WAL" })?;
        }
        if let Some(durability) = durability {
            self.set(durability)?;
        }
        Ok(found)
    }

    /// Records `durability`; a different one given earlier in the command is an error.
    pub fn set(&mut self, durability: &'static str) -> Result<()> {
        match self.durability {
            Some(earlier) if earlier != durability => Err(usage(format!(
                "conflicting durabilities: {earlier} and {durability} \
                 (DEFERRED_LOG_FLUSH => true is ASYNC_WAL, false is SYNC_WAL)"
            ))),
            _ => {
                self.durability = Some(durability);
                Ok(())
            }
        }
    }
}

fn text(table: &str) -> Option<Text> {
    Some(Text(Bytes::from(table.to_string())))
}

/// The table's DURABILITY, or `None` from a server without Strata's extensions.
pub fn fetch_durability(client: &Client, table: &str) -> Result<Option<String>> {
    let call = client.hbase().strata_get_table_durability(text(table));
    match client.call("describe", call) {
        Ok(name) => Ok(Some(name.to_string())),
        Err(ShellError::Unsupported(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Sets the table's DURABILITY.
pub fn set_durability(client: &Client, table: &str, durability: &str) -> Result<()> {
    let call = client
        .hbase()
        .strata_set_table_durability(text(table), Some(FastStr::new(durability)));
    client.call("alter", call)
}

/// `describe`'s table line: the name, then the attributes that differ from the default, as
/// HBase prints them (`t1, {TABLE_ATTRIBUTES => {DURABILITY => 'ASYNC_WAL'}}`).
pub fn table_line(table: &str, durability: Option<&str>) -> String {
    match durability {
        Some(d) if d != "USE_DEFAULT" => {
            format!("{table}, {{TABLE_ATTRIBUTES => {{DURABILITY => '{d}'}}}}")
        }
        _ => table.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn hash(pairs: &[(&str, Value)]) -> Value {
        Value::Hash(
            pairs
                .iter()
                .map(|(k, v)| (Value::Const(k.to_string()), v.clone()))
                .collect(),
        )
    }

    fn s(text: &str) -> Value {
        Value::Str(text.as_bytes().to_vec())
    }

    fn take(pairs: &[(&str, Value)]) -> Result<(bool, Option<&'static str>)> {
        let mut attrs = TableAttrs::default();
        let mut opts = Options::new("create", &hash(pairs))?;
        let found = attrs.take_from(&mut opts)?;
        Ok((found, attrs.durability))
    }

    #[test]
    fn durability_names_in_any_case() {
        for name in DURABILITIES {
            assert_eq!(durability_name(name).unwrap(), name);
            assert_eq!(durability_name(&name.to_lowercase()).unwrap(), name);
        }
        let err = durability_name("ASYNC").unwrap_err().to_string();
        assert!(err.contains("unknown DURABILITY 'ASYNC'"), "{err}");
        assert!(err.contains("FSYNC_WAL"), "{err}");
    }

    #[test]
    fn deferred_log_flush_is_async_or_sync_wal() {
        let on = take(&[("DEFERRED_LOG_FLUSH", s("true"))]).unwrap();
        assert_eq!(on, (true, Some("ASYNC_WAL")));
        let off = take(&[("DEFERRED_LOG_FLUSH", Value::Bool(false))]).unwrap();
        assert_eq!(off, (true, Some("SYNC_WAL")));
        let err = take(&[("DEFERRED_LOG_FLUSH", s("sometimes"))]).unwrap_err();
        assert!(err.to_string().contains("DEFERRED_LOG_FLUSH"), "{err}");
    }

    #[test]
    fn durability_is_taken_and_other_keys_are_left() {
        let pairs = [("DURABILITY", s("skip_wal")), ("VERSIONS", Value::Int(1))];
        let mut attrs = TableAttrs::default();
        let mut opts = Options::new("create", &hash(&pairs)).unwrap();
        assert!(attrs.take_from(&mut opts).unwrap());
        assert_eq!(attrs.durability, Some("SKIP_WAL"));
        assert!(opts.finish().is_err(), "VERSIONS is still there");
        assert_eq!(take(&[("VERSIONS", Value::Int(1))]).unwrap(), (false, None));
    }

    #[test]
    fn conflicting_durabilities_are_refused_and_equal_ones_are_not() {
        let both = [
            ("DEFERRED_LOG_FLUSH", Value::Bool(true)),
            ("DURABILITY", s("ASYNC_WAL")),
        ];
        assert_eq!(take(&both).unwrap(), (true, Some("ASYNC_WAL")));
        let clash = [
            ("DEFERRED_LOG_FLUSH", Value::Bool(true)),
            ("DURABILITY", s("FSYNC_WAL")),
        ];
        let err = take(&clash).unwrap_err().to_string();
        assert!(err.contains("conflicting durabilities"), "{err}");
    }

    #[test]
    fn the_table_line_shows_only_a_durability_that_is_set() {
        assert_eq!(table_line("t", None), "t");
        assert_eq!(table_line("t", Some("USE_DEFAULT")), "t");
        assert_eq!(
            table_line("t", Some("ASYNC_WAL")),
            "t, {TABLE_ATTRIBUTES => {DURABILITY => 'ASYNC_WAL'}}"
        );
    }
}
