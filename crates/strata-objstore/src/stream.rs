//! A server's WAL stream: the objects `wal/<hash>/<server>/<incarnation>/<id>.wal`, ids
//! contiguous from the stream's first live id.
//!
//! A stream belongs to one process: a restarted server takes a new incarnation, so two
//! processes never share a stream and the only race is writer vs. fencer. `<hash>` (four
//! hex digits of the server id's CRC32C) spreads servers over key prefixes, because S3
//! scales request rates per prefix. Ids have 20 digits so key order is id order.

use object_store::path::Path;
use strata_engine::codec::crc32c;

const ID_DIGITS: usize = 20;
const SUFFIX: &str = ".wal";

/// Names one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamId {
    pub server_id: u64,
    /// Bumped each time the server process starts.
    pub incarnation: u64,
}

impl std::fmt::Display for StreamId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.prefix())
    }
}

impl StreamId {
    /// A stream of `server_id`'s `incarnation`.
    pub fn new(server_id: u64, incarnation: u64) -> Self {
        StreamId {
            server_id,
            incarnation,
        }
    }

    /// The key prefix under which the stream's objects live.
    pub fn prefix(&self) -> Path {
        server_prefix(self.server_id).join(self.incarnation.to_string())
    }

    /// The key of object `id`.
    pub fn object_path(&self, id: u64) -> Path {
        self.prefix()
            .join(format!("{id:0width$}{SUFFIX}", width = ID_DIGITS))
    }

    /// The object id in `path`, or `None` if `path` is not one of this stream's objects.
    pub fn parse_object_id(&self, path: &Path) -> Option<u64> {
        let name = path.filename()?;
        let digits = name.strip_suffix(SUFFIX)?;
        if digits.len() != ID_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if self.object_path(digits.parse().ok()?) != *path {
            return None;
        }
        digits.parse().ok()
    }
}

/// The key prefix of every stream (every incarnation) of `server_id`.
pub fn server_prefix(server_id: u64) -> Path {
    let hash = crc32c(&server_id.to_le_bytes()) & 0xffff;
    Path::from(format!("wal/{hash:04x}/{server_id}"))
}

/// The incarnation whose stream holds `path`, if `path` lies under `server_prefix`.
pub fn parse_incarnation(server_id: u64, path: &Path) -> Option<u64> {
    let rest = path.prefix_match(&server_prefix(server_id))?;
    rest.into_iter().next()?.as_ref().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_keys_round_trip_and_sort_by_id() {
        let stream = StreamId::new(7, 2);
        let path = stream.object_path(42);
        assert!(path.as_ref().starts_with("wal/"), "{path}");
        assert!(
            path.as_ref().ends_with("/7/2/00000000000000000042.wal"),
            "{path}"
        );
        assert_eq!(stream.parse_object_id(&path), Some(42));
        assert!(stream.object_path(9).as_ref() < stream.object_path(10).as_ref());
        assert_eq!(StreamId::new(7, 3).parse_object_id(&path), None);
        assert_eq!(stream.parse_object_id(&stream.prefix().join("x.wal")), None);
    }
}
