//! The values stored in etcd: JSON objects with a format version `"v"`
//! (`docs/format.md`, "Cluster metadata in etcd"). JSON because the records are small, are
//! read rarely (at assignment and on watches, never per request), and stay readable with
//! `etcdctl get`. Row keys are bytes, so they are stored as lowercase hex.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::keys::RegionId;

/// The value format version written, in every record's `"v"`. 2 since regions are spread
/// over servers: a server's `addr` names its internal RPC port too, and the catalog lives
/// under `/catalog/`. 3 since a region may be `closed` (`unassign`), a state a version 2
/// reader cannot decode, so such a reader refuses every version 3 record by its version
/// instead. Version 2 is still read; version 1 (active/standby) is refused.
pub const FORMAT_VERSION: u32 = 3;

/// The oldest version read.
const OLDEST_READ: u32 = 2;

/// `/servers/<sid>`: a live server. Its incarnation is the key's create revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRecord {
    pub v: u32,
    /// Where its internal RPC listens (`host:port`).
    pub addr: String,
}

/// The lifecycle of a region in the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionState {
    /// No server may serve it.
    Offline,
    /// Assigned to `owner`.
    Open,
    /// Closed by an administrator (HBase's `unassign`): no server serves it, and the
    /// master leaves it so until it is assigned again. Only a region its live owner released
    /// (flushed) is closed, so none of its edits wait in a WAL stream.
    Closed,
    /// Replaced by its successors (a split's daughters, a merge's result); kept until the
    /// master's GC has handed its files over.
    Retired,
}

/// `/regions/<rid>`: one entry of the region directory. The epoch is not stored: it is
/// the key's mod revision, so every change of the record fences the previous holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionRecord {
    pub v: u32,
    /// `namespace:table`.
    pub table: String,
    /// First row (inclusive), hex; empty is the start of the table.
    #[serde(with = "hex_bytes")]
    pub start: Vec<u8>,
    /// Last row (exclusive), hex; empty is the end of the table.
    #[serde(with = "hex_bytes")]
    pub end: Vec<u8>,
    pub state: RegionState,
    /// The assigned server id, when `state` is `open`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// For a retired region: the regions that replaced it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub successors: Vec<RegionId>,
}

impl RegionRecord {
    /// An offline region of `table` covering `[start, end)`.
    pub fn new(table: &str, start: &[u8], end: &[u8]) -> Self {
        RegionRecord {
            v: FORMAT_VERSION,
            table: table.to_owned(),
            start: start.to_vec(),
            end: end.to_vec(),
            state: RegionState::Offline,
            owner: None,
            successors: Vec::new(),
        }
    }
}

/// `/manifests/<rid>/<family>`: the store's committed manifest number, and the region
/// epoch under which it was committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestPointer {
    pub v: u32,
    pub manifest: u64,
    pub epoch: i64,
}

/// `/own/<rid>`: the server that serves the region now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerRecord {
    pub v: u32,
    pub sid: String,
    pub incarnation: i64,
    pub epoch: i64,
    /// Set once the region is open there: a dead owner's edits replayed and flushed. A
    /// claim alone comes before the replay, so it does not free the dead owner's stream.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub serving: bool,
}

/// `/master`: the elected master.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MasterRecord {
    pub v: u32,
    pub sid: String,
    pub addr: String,
}

/// Encodes a record.
pub fn encode<T: Serialize>(record: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(record).map_err(|e| Error::InvalidArgument(format!("encode: {e}")))
}

/// Decodes the record stored at `key`, refusing unknown format versions.
pub fn decode<T: DeserializeOwned>(key: &str, bytes: &[u8]) -> Result<T> {
    #[derive(Deserialize)]
    struct Version {
        v: u32,
    }
    let version: Version = serde_json::from_slice(bytes).map_err(|e| Error::corruption(key, e))?;
    if !(OLDEST_READ..=FORMAT_VERSION).contains(&version.v) {
        return Err(Error::corruption(
            key,
            format!(
                "unknown format version {} (this build reads {OLDEST_READ} to {FORMAT_VERSION})",
                version.v
            ),
        ));
    }
    serde_json::from_slice(bytes).map_err(|e| Error::corruption(key, e))
}

mod hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        let text: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        s.serialize_str(&text)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        if text.len() % 2 != 0 {
            return Err(serde::de::Error::custom("odd hex length"));
        }
        (0..text.len())
            .step_by(2)
            .map(|i| {
                text.get(i..i + 2)
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                    .ok_or_else(|| serde::de::Error::custom("bad hex digit"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_record_round_trips_and_reads_well() {
        let mut record = RegionRecord::new("default:t", b"a\x00", b"");
        record.state = RegionState::Open;
        record.owner = Some("rs1".into());
        let bytes = encode(&record).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(
            text,
            r#"{"v":3,"table":"default:t","start":"6100","end":"","state":"open","owner":"rs1"}"#
        );
        assert_eq!(decode::<RegionRecord>("/k", &bytes).unwrap(), record);
    }

    #[test]
    fn unknown_versions_and_garbage_are_corruption() {
        for other in [
            br#"{"v":1,"manifest":1,"epoch":1}"#,
            br#"{"v":4,"manifest":1,"epoch":1}"#,
        ] {
            let err = decode::<ManifestPointer>("/k", other);
            assert!(matches!(err, Err(Error::Corruption { .. })));
        }
        assert!(decode::<ManifestPointer>("/k", b"nope").is_err());
        let odd = br#"{"v":3,"table":"t","start":"abc","end":"","state":"offline"}"#;
        assert!(decode::<RegionRecord>("/k", odd).is_err());
        // Version 2 is still read.
        let old = br#"{"v":2,"manifest":7,"epoch":1}"#;
        assert_eq!(decode::<ManifestPointer>("/k", old).unwrap().manifest, 7);
    }
}

/// `/wal/<stream>`: how much of a WAL stream a recovery must read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamRecord {
    pub v: u32,
    /// `"live"`: its writer serves; objects below `first_live_id` hold only flushed edits.
    /// `"replayed"`: a new master replayed it and flushed; no recovery reads it again.
    /// The objects themselves are the garbage collector's.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_live_id: Option<u64>,
}

/// `/held/<sid>`: object keys (`data/regions/...sst`) that no current manifest of the
/// server's stores lists any more but that a reader there still holds. Written under the
/// server's lease, so it vanishes with the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldRecord {
    pub v: u32,
    pub keys: Vec<String>,
}

/// `/load/<sid>`: requests per second (reads and writes) of each region the server serves,
/// over its last measuring interval. Written under the server's lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadRecord {
    pub v: u32,
    /// Region id → requests per second.
    pub regions: std::collections::BTreeMap<u64, u64>,
}

/// A value that is only its format version (`{"v":N}`): a mark whose key says it all.
pub fn version_only() -> Vec<u8> {
    format!("{{\"v\":{FORMAT_VERSION}}}").into_bytes()
}
