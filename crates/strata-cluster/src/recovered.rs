//! [`DeadStreams`]: what a region's new owner replays when its previous owner died. Every
//! fenced stream no recovery retired is read once, whole (many GETs in flight), and its
//! edits are kept by region, so opening each of a dead server's regions costs no further
//! reads. A stream is fenced by the master before it assigns the dead server's regions,
//! so its replayable objects are final when they are read here.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use parking_lot::Mutex;
use strata_engine::codec::WalEdit;
use strata_objstore::{
    list_stream, list_streams, replay_stream, BlockingStore, RetryPolicy, StreamId,
};

use crate::node::ClusterNode;
use crate::objects::stream_name;

/// Edits of dead servers' streams, by stream and region, read on first need.
#[derive(Default)]
pub struct DeadStreams {
    read: Mutex<HashMap<StreamId, HashMap<u64, Vec<WalEdit>>>>,
}

impl DeadStreams {
    /// The edits of `region` in every fenced, unretired stream but this server's own, in
    /// stream order. Streams not read yet are read first; streams retired since are
    /// forgotten.
    pub fn take(&self, node: &ClusterNode, region: u64) -> strata_engine::Result<Vec<WalEdit>> {
        let fenced = fenced_streams(node)?;
        let mut read = self.read.lock();
        read.retain(|stream, _| fenced.iter().any(|(s, _)| s == stream));
        let mut edits = Vec::new();
        for (stream, first_id) in fenced {
            let by_region = match read.entry(stream) {
                Entry::Occupied(read) => read.into_mut(),
                Entry::Vacant(slot) => {
                    let mut by_region: HashMap<u64, Vec<WalEdit>> = HashMap::new();
                    replay_stream(
                        &node.store,
                        stream,
                        first_id,
                        &node.writer_deps(),
                        &mut |edit| {
                            by_region.entry(edit.region_id).or_default().push(edit);
                            Ok(())
                        },
                    )?;
                    slot.insert(by_region)
                }
            };
            // Cloned, not taken: a region whose open fails after this is opened again.
            if let Some(found) = by_region.get(&region) {
                edits.extend(found.iter().cloned());
            }
        }
        Ok(edits)
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
    let live: HashSet<u64> = node
        .coord
        .live_servers()
        .map_err(|e| unavailable(e.to_string()))?
        .iter()
        .filter_map(|s| s.sid.parse().ok())
        .collect();
    fenced_among(&node.store, node.stream(), &records, &live)
        .map_err(|e| unavailable(e.to_string()))
}

/// [`fenced_streams`] over the store's streams, given the stream records and the live
/// servers' ids. The streams of live servers are passed over without being read: the
/// master fences only the streams of servers gone from the membership, and a server id
/// never comes back once its lease is gone (ids are random per process). Listing them
/// would cost a request per thousand objects of a stream that only grows until the
/// garbage collector's minimum age, on every region open.
fn fenced_among(
    store: &BlockingStore,
    own: StreamId,
    records: &HashMap<String, strata_coord::StreamRecord>,
    live: &HashSet<u64>,
) -> strata_objstore::Result<Vec<(StreamId, u64)>> {
    let retry = RetryPolicy::default();
    let mut fenced = Vec::new();
    for stream in list_streams(store, &retry)? {
        if stream == own || live.contains(&stream.server_id) {
            continue;
        }
        let record = records.get(&stream_name(stream));
        if record.is_some_and(|r| r.state == "replayed") {
            continue;
        }
        if is_fenced(store, stream, &retry)? {
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::disallowed_methods)] // real time in these tests
mod tests {
    use std::sync::Arc;

    use object_store::memory::InMemory;
    use strata_coord::StreamRecord;
    use strata_engine::codec::WalEdit;
    use strata_engine::Cell;
    use strata_objstore::testing::{Fault, FaultyStore, Op};
    use strata_objstore::{
        fence_stream, RandomTokens, WalObjectBuilder, WalStreamWriter, WriterDeps,
    };

    use super::*;

    fn deps() -> WriterDeps {
        WriterDeps {
            tokens: Arc::new(RandomTokens),
            clock: strata_runtime::clock::system(),
            retry: RetryPolicy::default(),
        }
    }

    /// A store whose `list` requests can be made to fail, holding one batch in each stream.
    fn store_with(streams: &[StreamId]) -> (BlockingStore, Arc<FaultyStore>) {
        let faulty = Arc::new(FaultyStore::new(Arc::new(InMemory::new())));
        let store = BlockingStore::new(faulty.clone(), "memory://recovered").unwrap();
        for &stream in streams {
            let mut batch = WalObjectBuilder::new();
            let cell = Cell::put("row", "f", "q", 1, "v");
            batch.add_edit(&WalEdit::new(7, 1, vec![cell])).unwrap();
            let mut writer = WalStreamWriter::new(store.clone(), stream, 0, deps());
            writer.append(&batch).unwrap();
        }
        (store, faulty)
    }

    #[test]
    fn a_dead_servers_fenced_stream_is_found_with_its_first_live_object() {
        let (own, dead, gone) = (
            StreamId::new(1, 1),
            StreamId::new(2, 1),
            StreamId::new(3, 1),
        );
        let (store, _) = store_with(&[own, dead, gone]);
        fence_stream(&store, dead, &deps()).unwrap();
        let mut records = HashMap::new();
        let live_record = |first| StreamRecord {
            v: 1,
            state: "live".into(),
            first_live_id: Some(first),
        };
        records.insert(stream_name(dead), live_record(1));
        // Stream 3 is fenced too, but a recovery replayed it already.
        fence_stream(&store, gone, &deps()).unwrap();
        let replayed = StreamRecord {
            state: "replayed".into(),
            ..live_record(0)
        };
        records.insert(stream_name(gone), replayed);
        let fenced = fenced_among(&store, own, &records, &HashSet::new()).unwrap();
        assert_eq!(fenced, vec![(dead, 1)]);
    }

    #[test]
    fn the_streams_of_live_servers_are_not_read() {
        let (own, live) = (StreamId::new(1, 1), StreamId::new(2, 1));
        let (store, faulty) = store_with(&[own, live]);
        // Listing a stream's objects is a `list` request; listing the streams is not.
        faulty.inject(Op::List, Fault::FailBefore);
        let fenced = fenced_among(&store, own, &HashMap::new(), &HashSet::from([2])).unwrap();
        assert!(fenced.is_empty());
        assert_eq!(
            faulty.pending_faults(),
            1,
            "a live server's stream was listed"
        );
        // Once its server is gone (and before the master fences it), it is read and found
        // not fenced.
        let fenced = fenced_among(&store, own, &HashMap::new(), &HashSet::new()).unwrap();
        assert!(fenced.is_empty());
        assert_eq!(faulty.pending_faults(), 0);
    }
}
