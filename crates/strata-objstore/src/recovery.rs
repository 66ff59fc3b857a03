//! What a region's new owner replays from a dead server's WAL stream.
//!
//! The master fences the stream first (`fencer.rs`): from then on its replayable objects
//! (every object below the first fence) are final, and every write the dead server
//! acknowledged is among them. The new owner reads only its own region's sections of
//! them, so a failover never splits a log.

use strata_engine::codec::WalEdit;

use crate::error::Result;
use crate::reader::{list_stream, replayable, StreamReader};
use crate::retry::RetryPolicy;
use crate::store::BlockingStore;
use crate::stream::StreamId;

/// The edits of `region` newer than `after_seq` in the fenced `stream`, in stream order.
/// Call only after the stream was fenced: before, its writer may still add objects.
pub fn fenced_region_edits(
    store: &BlockingStore,
    stream: StreamId,
    region: u64,
    after_seq: u64,
    retry: &RetryPolicy,
) -> Result<Vec<WalEdit>> {
    let listed = list_stream(store, stream, retry)?;
    let objects = replayable(&listed);
    let reader = StreamReader::new(store.clone(), stream, retry.clone());
    let first = after_seq.saturating_add(1);
    reader.replay_region(&objects, region, first..=u64::MAX)
}

/// Every stream in the store (any server, any incarnation), found by listing the `wal/`
/// key levels: hash, server, incarnation.
pub fn list_streams(store: &BlockingStore, retry: &RetryPolicy) -> Result<Vec<StreamId>> {
    let root = object_store::path::Path::from("wal");
    let mut streams = Vec::new();
    for hash in retry.run(|| store.list_children(&root))? {
        let hash_dir = root.clone().join(hash.as_str());
        for server in retry.run(|| store.list_children(&hash_dir))? {
            let Ok(server_id) = server.parse::<u64>() else {
                continue;
            };
            let server_dir = hash_dir.clone().join(server.as_str());
            for incarnation in retry.run(|| store.list_children(&server_dir))? {
                if let Ok(incarnation) = incarnation.parse::<u64>() {
                    streams.push(StreamId::new(server_id, incarnation));
                }
            }
        }
    }
    streams.sort_by_key(|s| (s.server_id, s.incarnation));
    Ok(streams)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use object_store::memory::InMemory;

    use super::*;
    use crate::tests::{batch, deps, edit};
    use crate::WalStreamWriter;

    #[test]
    fn every_stream_is_listed_and_a_fenced_one_yields_its_regions_edits() {
        let store = BlockingStore::new(Arc::new(InMemory::new()), "memory://l").unwrap();
        let streams = [
            StreamId::new(3, 1),
            StreamId::new(3, 2),
            StreamId::new(40, 7),
        ];
        for stream in streams {
            let mut writer = WalStreamWriter::new(store.clone(), stream, 0, deps(1));
            writer.append(&batch(&[edit(1, 5), edit(2, 6)])).unwrap();
            writer.append(&batch(&[edit(1, 9)])).unwrap();
        }
        assert_eq!(
            list_streams(&store, &deps(0).retry).unwrap(),
            streams.to_vec()
        );
        crate::fence_stream(&store, streams[2], &deps(2)).unwrap();
        let edits = fenced_region_edits(&store, streams[2], 1, 5, &deps(0).retry).unwrap();
        let seqs: Vec<u64> = edits.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![9], "only region 1's edits after seq 5");
    }
}
