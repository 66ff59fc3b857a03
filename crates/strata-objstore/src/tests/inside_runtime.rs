//! The blocking store called from inside another tokio runtime: a network server answers a
//! point read on its own async task, and a block that is not cached is read from the store
//! there.

use std::sync::Arc;

use bytes::Bytes;
use object_store::memory::InMemory;
use object_store::path::Path;

use crate::BlockingStore;

fn store_with_object() -> (BlockingStore, Path) {
    let store = BlockingStore::new(Arc::new(InMemory::new()), "memory://inside").unwrap();
    let path = Path::from("data/x");
    store
        .put_create(&path, Bytes::from_static(b"hello"))
        .unwrap();
    (store, path)
}

#[test]
fn regression_a_read_from_a_task_of_another_runtime_does_not_panic() {
    // Found in cluster mode: a Thrift point read of a region moved to this server (its
    // files written by another) panicked "Cannot start a runtime from within a runtime".
    let (store, path) = store_with_object();
    for multi_threaded in [true, false] {
        let runtime = if multi_threaded {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
        } else {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
        }
        .unwrap();
        let (s, p) = (store.clone(), path.clone());
        let got = runtime
            .block_on(async move { s.get_range(&p, 1..4) })
            .unwrap();
        assert_eq!(got, Bytes::from_static(b"ell"));
        let (s, p) = (store.clone(), path.clone());
        let spawned = runtime
            .block_on(async move { tokio::spawn(async move { s.get_range(&p, 0..5) }).await });
        assert_eq!(spawned.unwrap().unwrap(), Bytes::from_static(b"hello"));
    }
}
