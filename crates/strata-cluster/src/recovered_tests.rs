#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use object_store::memory::InMemory;
use strata_coord::StreamRecord;
use strata_engine::codec::WalEdit;
use strata_engine::Cell;
use strata_objstore::testing::{Fault, FaultyStore, Op};
use strata_objstore::{fence_stream, RandomTokens, WalObjectBuilder, WalStreamWriter};

use super::*;

fn deps() -> WriterDeps {
    WriterDeps {
        tokens: Arc::new(RandomTokens),
        clock: strata_engine::util::clock::system(),
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
