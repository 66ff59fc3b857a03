//! Dead servers' WAL streams, the master's part: it seals the streams of servers that are
//! gone before it reassigns their regions, and records them as replayed once those
//! regions serve again (`retire.rs`).
//!
//! A stream needs sealing when its server is gone (not in the membership list), it is
//! not this server's, and it is not recorded as replayed. Sealing is the fence object
//! (`strata_objstore::fence_stream`): whatever the dead server stored below it is
//! replayed by the regions' new owners, and anything it tries later is refused.

use std::collections::{HashMap, HashSet};

use strata_coord::{Leadership, StreamRecord};
use strata_objstore::{fence_stream, list_stream, list_streams, StreamId};

use crate::error::{Error, Result};
use crate::node::ClusterNode;
use crate::objects::stream_name;

/// Seals every stream a new master must replay, and returns them, each with the first
/// object a replay needs (what its writer last published; 0 if nothing).
pub fn seal_dead_streams(node: &ClusterNode) -> Result<Vec<(StreamId, u64)>> {
    let etcd_error = |source| Error::Etcd {
        endpoints: node.config.etcd.clone(),
        source,
    };
    let store_error = |source| Error::Store {
        url: node.config.store.clone(),
        source,
    };
    let records: HashMap<String, StreamRecord> = node
        .coord
        .stream_records()
        .map_err(etcd_error)?
        .into_iter()
        .collect();
    let live: HashSet<String> = node
        .coord
        .live_servers()
        .map_err(etcd_error)?
        .into_iter()
        .map(|s| s.sid)
        .collect();
    let deps = node.writer_deps();
    let mut sealed = Vec::new();
    for stream in list_streams(&node.store, &deps.retry).map_err(store_error)? {
        let own = stream == node.stream();
        if own || live.contains(&stream.server_id.to_string()) {
            continue;
        }
        let record = records.get(&stream_name(stream));
        if record.is_some_and(|r| r.state == "replayed") {
            continue;
        }
        let first_id = record.and_then(|r| r.first_live_id).unwrap_or(0);
        let objects = list_stream(&node.store, stream, &deps.retry).map_err(store_error)?;
        if !objects.iter().any(|o| o.is_fence()) {
            fence_stream(&node.store, stream, &deps).map_err(store_error)?;
            tracing::info!(%stream, "sealed a dead server's WAL stream");
        }
        sealed.push((stream, first_id));
    }
    Ok(sealed)
}

/// Records `streams` as replayed: every region was opened from them and flushed since.
pub fn retire_streams(
    node: &ClusterNode,
    leadership: &Leadership,
    streams: &[(StreamId, u64)],
) -> Result<()> {
    for (stream, _) in streams {
        node.coord
            .retire_stream(leadership, &stream_name(*stream))
            .map_err(|source| Error::Etcd {
                endpoints: node.config.etcd.clone(),
                source,
            })?;
    }
    Ok(())
}
