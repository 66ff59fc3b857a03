//! The names of the cluster's objects in the store, which every server and the master's
//! collector agree on: the engine's volume root, a WAL stream's name in etcd, and an
//! engine path as an object key.

use std::path::Path;

use strata_objstore::StreamId;

/// The key prefix of the tables' files in the store (the engine's volume root).
pub const DATA_ROOT: &str = "data";

/// The name a stream is recorded under in etcd (`/wal/<name>`).
pub fn stream_name(stream: StreamId) -> String {
    format!("{}-{}", stream.server_id, stream.incarnation)
}

/// An engine path as an object key: its plain components joined by `/` (what `ObjectFs`
/// stores it as), or `None` for a path that could not be an object.
pub fn path_key(path: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            std::path::Component::Normal(name) => parts.push(name.to_str()?),
            std::path::Component::RootDir | std::path::Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_paths_become_keys_and_odd_ones_do_not() {
        assert_eq!(
            path_key(Path::new("/data/regions/x/f/1.sst")).as_deref(),
            Some("data/regions/x/f/1.sst")
        );
        assert_eq!(path_key(Path::new("data/../etc")), None);
        assert_eq!(stream_name(StreamId::new(7, 2)), "7-2");
    }
}
