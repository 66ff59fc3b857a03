//! [`DeadStreams`]: what a region's new owner replays when its previous owner died. Every
//! fenced stream no recovery retired is read once, whole (many GETs in flight), and its
//! edits are kept by region, so opening each of a dead server's regions costs no further
//! reads. A stream is fenced by the master before it assigns the dead server's regions,
//! so its replayable objects are final when they are read here.

use std::collections::{HashMap, HashSet};

use parking_lot::Mutex;
use strata_engine::codec::WalEdit;
use strata_objstore::{
    list_stream, list_streams, replay_stream, BlockingStore, RandomTokens, RetryPolicy, StreamId,
    WriterDeps,
};

use crate::node::ClusterNode;
use crate::takeover::stream_name;

/// Edits of dead servers' streams, by region, read on first need.
#[derive(Default)]
pub struct DeadStreams {
    state: Mutex<Loaded>,
}

#[derive(Default)]
struct Loaded {
    /// Streams read so far.
    read: HashSet<StreamId>,
    /// Their edits by region, in stream order.
    by_region: HashMap<u64, Vec<WalEdit>>,
}

impl DeadStreams {
    /// The edits of `region` in every fenced, unretired stream but this server's own.
    /// Streams not read yet are read first.
    pub fn take(&self, node: &ClusterNode, region: u64) -> strata_engine::Result<Vec<WalEdit>> {
        let mut state = self.state.lock();
        for (stream, first_id) in fenced_streams(node)? {
            if state.read.insert(stream) {
                let by_region = &mut state.by_region;
                let deps = deps(node);
                replay_stream(&node.store, stream, first_id, &deps, &mut |edit| {
                    by_region.entry(edit.region_id).or_default().push(edit);
                    Ok(())
                })?;
            }
        }
        // Cloned, not taken: a region whose open fails after this is opened again later.
        Ok(state.by_region.get(&region).cloned().unwrap_or_default())
    }
}

fn deps(node: &ClusterNode) -> WriterDeps {
    WriterDeps {
        tokens: std::sync::Arc::new(RandomTokens),
        clock: std::sync::Arc::clone(&node.clock),
        retry: RetryPolicy::default(),
    }
}

/// Streams other than this server's that hold a fence and that no recovery retired, each
/// with the first object a replay needs.
fn fenced_streams(node: &ClusterNode) -> strata_engine::Result<Vec<(StreamId, u64)>> {
    let unavailable = |e: String| strata_engine::Error::Closed(format!("cluster recovery: {e}"));
    let records: HashMap<String, strata_coord::StreamRecord> = node
        .coord
        .stream_records()
        .map_err(|e| unavailable(e.to_string()))?
        .into_iter()
        .collect();
    let retry = RetryPolicy::default();
    let streams = list_streams(&node.store, &retry).map_err(|e| unavailable(e.to_string()))?;
    let mut fenced = Vec::new();
    for stream in streams.into_iter().filter(|s| *s != node.stream()) {
        let record = records.get(&stream_name(stream));
        if record.is_some_and(|r| r.state == "replayed") {
            continue;
        }
        if is_fenced(&node.store, stream, &retry).map_err(|e| unavailable(e.to_string()))? {
            fenced.push((stream, record.and_then(|r| r.first_live_id).unwrap_or(0)));
        }
    }
    Ok(fenced)
}

fn is_fenced(
    store: &BlockingStore,
    stream: StreamId,
    retry: &RetryPolicy,
) -> strata_objstore::Result<bool> {
    Ok(list_stream(store, stream, retry)?
        .iter()
        .any(|o| o.is_fence()))
}
