#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

//! The protocol against a real S3 server, through `s3://`. Ignored by default; run with
//! `scripts/objstore-s3-test`, which starts S3Proxy (`scripts/s3proxy-env`), sets the AWS_*
//! variables and `STRATA_S3_TEST_STORE`, and runs these with `--ignored`.

use std::sync::Arc;
use std::time::Duration;

use strata_engine::codec::WalEdit;
use strata_engine::Cell;
use strata_objstore::testing::{Fault, FaultyStore, Op};
use strata_objstore::{
    fence_stream, open_store, probe_atomic_create, RandomTokens, RetryPolicy, StreamId,
    StreamReader, TokenSource, WalObjectBuilder, WalStreamWriter, WriterDeps,
};
use strata_runtime::clock;

fn store_url() -> String {
    std::env::var("STRATA_S3_TEST_STORE")
        .unwrap_or_else(|_| panic!("set STRATA_S3_TEST_STORE (see scripts/objstore-s3-test)"))
}

fn deps() -> WriterDeps {
    WriterDeps {
        tokens: Arc::new(RandomTokens),
        clock: clock::system(),
        retry: RetryPolicy::default(),
    }
}

/// A stream no other run has used: a random server id.
fn fresh_stream() -> StreamId {
    let token = RandomTokens.next_token().0;
    let mut id = [0u8; 8];
    id.copy_from_slice(&token[..8]);
    StreamId::new(u64::from_le_bytes(id) >> 16, 1)
}

fn batch(region: u64, seq: u64, value_len: usize) -> WalObjectBuilder {
    let value = vec![b'v'; value_len];
    let edit = WalEdit::new(
        region,
        seq,
        vec![Cell::put("row", "f", "q", seq as i64, value)],
    );
    let mut builder = WalObjectBuilder::new();
    builder.add_edit(&edit).unwrap();
    builder
}

#[test]
#[ignore = "needs an S3 server: scripts/objstore-s3-test"]
fn s3_probe_passes() {
    let store = open_store(&store_url()).unwrap();
    let report = probe_atomic_create(&store, &RandomTokens, &RetryPolicy::default()).unwrap();
    assert_eq!(report.refused, strata_objstore::probe::PROBE_PUTS - 1);
}

#[test]
#[ignore = "needs an S3 server: scripts/objstore-s3-test"]
fn s3_zombie_vs_fencer() {
    let store = open_store(&store_url()).unwrap();
    // The zombie's view can lose a response, so the ambiguity path runs against real S3.
    let faults = Arc::new(FaultyStore::new(store.inner().clone()));
    let zombie_store = store.with_inner(|_| faults.clone());
    let stream = fresh_stream();
    let mut zombie = WalStreamWriter::new(zombie_store, stream, 0, deps());
    zombie.append(&batch(1, 1, 100)).unwrap();
    faults.inject(Op::Put, Fault::FailAfter);
    assert_eq!(zombie.append(&batch(1, 2, 100)).unwrap().object_id, 1);

    let fenced = fence_stream(&store, stream, &deps()).unwrap();
    assert_eq!(fenced.fence_id, 2);
    let err = zombie.append(&batch(1, 3, 100)).unwrap_err();
    assert!(err.is_fenced(), "{err}");

    let reader = StreamReader::new(store.clone(), stream, RetryPolicy::default());
    let edits = reader
        .replay_region(&fenced.replay, 1, 0..=u64::MAX)
        .unwrap();
    let seqs: Vec<u64> = edits.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2]);
}

#[test]
#[ignore = "needs an S3 server: scripts/objstore-s3-test"]
fn s3_put_latency() {
    let store = open_store(&store_url()).unwrap();
    let clock = clock::system();
    for value_len in [4 << 10, 64 << 10, 1 << 20] {
        let mut writer = WalStreamWriter::new(store.clone(), fresh_stream(), 0, deps());
        let mut took: Vec<Duration> = (0..40)
            .map(|seq| {
                let start = clock.now();
                writer.append(&batch(1, seq, value_len)).unwrap();
                clock.now() - start
            })
            .collect();
        took.sort();
        eprintln!(
            "WAL object PUT, {} KiB: p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms",
            value_len >> 10,
            took[19].as_secs_f64() * 1e3,
            took[35].as_secs_f64() * 1e3,
            took[39].as_secs_f64() * 1e3,
        );
    }
}

#[test]
#[ignore = "needs an S3 server: scripts/objstore-s3-test"]
fn s3_object_fs_creates_once_and_uploads_large_files_in_parts() {
    use std::path::Path;
    use strata_engine::fs::FileSystem;
    use strata_objstore::ObjectFs;

    let store = open_store(&store_url()).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let fs = ObjectFs::new(
        store.clone(),
        RetryPolicy::default(),
        Some(cache.path().to_path_buf()),
    );
    let dir = format!("fs-test/{}", fresh_stream().server_id);
    let manifest = Path::new(&dir).join("MANIFEST-00000000000000000001");
    let mut file = fs.create_new(&manifest).unwrap();
    file.append(b"first").unwrap();
    file.sync().unwrap();
    let mut again = fs.create_new(&manifest).unwrap();
    again.append(b"second").unwrap();
    let err = again.sync().unwrap_err();
    assert!(err.is_already_exists(), "{err}");

    let big: Vec<u8> = (0..(24u32 << 20)).map(|i| (i % 253) as u8).collect();
    let table = Path::new(&dir).join("0000000000000001-s1i1.sst");
    let mut file = fs.create(&table).unwrap();
    file.append(&big).unwrap();
    file.sync().unwrap();
    let remote = ObjectFs::new(store, RetryPolicy::default(), None);
    assert_eq!(remote.read_all(&manifest).unwrap(), b"first");
    let read = remote.open_read(&table).unwrap();
    assert_eq!(read.len(), big.len() as u64);
    assert_eq!(
        read.read_at(20 << 20, 100).unwrap(),
        &big[20 << 20..(20 << 20) + 100]
    );
}
