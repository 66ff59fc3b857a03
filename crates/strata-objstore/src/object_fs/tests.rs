use std::path::Path;
use std::sync::Arc;

use object_store::memory::InMemory;
use object_store::ObjectStore;
use strata_engine::fs::FileSystem;

use super::*;
use crate::testing::{run_on_other_thread, Fault, FaultyStore, Op};

fn store_over(inner: Arc<dyn ObjectStore>) -> BlockingStore {
    BlockingStore::new(inner, "memory://fs-test").unwrap()
}

fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        initial_backoff: std::time::Duration::from_millis(1),
        ..RetryPolicy::default()
    }
}

fn write(fs: &ObjectFs, path: &str, bytes: &[u8], new: bool) -> Result<()> {
    let path = Path::new(path);
    let mut file = if new {
        fs.create_new(path)?
    } else {
        fs.create(path)?
    };
    file.append(bytes)?;
    file.sync()
}

#[test]
fn nothing_is_stored_before_sync_and_the_object_reads_back_after() {
    let memory: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let fs = ObjectFs::new(store_over(Arc::clone(&memory)), fast_retry(), None);
    let mut file = fs.create(Path::new("/d/r/a.sst")).unwrap();
    file.append(b"hello ").unwrap();
    file.append(b"world").unwrap();
    assert!(!fs.exists(Path::new("/d/r/a.sst")).unwrap());
    file.sync().unwrap();
    assert!(file.append(b"more").is_err(), "objects are written once");
    assert_eq!(fs.file_size(Path::new("/d/r/a.sst")).unwrap(), 11);
    let read = fs.open_read(Path::new("/d/r/a.sst")).unwrap();
    assert_eq!(read.read_at(6, 5).unwrap(), b"world");
    assert!(read.read_at(8, 5).unwrap_err().is_corruption());
    assert_eq!(fs.list(Path::new("/d")).unwrap(), vec!["r".to_string()]);
    assert!(
        fs.exists(Path::new("/d/r")).unwrap(),
        "a prefix is a directory"
    );
    fs.remove(Path::new("/d/r/a.sst")).unwrap();
    assert!(!fs.exists(Path::new("/d/r/a.sst")).unwrap());
    assert_eq!(
        fs.file_size(Path::new("/d/r/a.sst")).unwrap_err().kind(),
        strata_engine::ErrorKind::NotFound
    );
}

#[test]
fn create_new_refuses_a_taken_name_and_create_replaces() {
    let fs = ObjectFs::new(store_over(Arc::new(InMemory::new())), fast_retry(), None);
    write(&fs, "m/MANIFEST-2", b"first", true).unwrap();
    let err = write(&fs, "m/MANIFEST-2", b"second", true).unwrap_err();
    assert!(err.is_already_exists(), "{err}");
    assert_eq!(fs.read_all(Path::new("m/MANIFEST-2")).unwrap(), b"first");
    write(&fs, "m/t.sst", b"one", false).unwrap();
    write(&fs, "m/t.sst", b"two", false).unwrap();
    assert_eq!(fs.read_all(Path::new("m/t.sst")).unwrap(), b"two");
}

#[test]
fn an_ambiguous_create_that_landed_is_recognised_by_its_bytes() {
    let faulty = Arc::new(FaultyStore::new(Arc::new(InMemory::new())));
    let fs = ObjectFs::new(store_over(faulty.clone()), fast_retry(), None);
    // The PUT is stored, its response lost; the retry finds the key taken by our bytes.
    faulty.inject(Op::Put, Fault::FailAfter);
    write(&fs, "m/MANIFEST-3", b"ours", true).unwrap();
    assert_eq!(fs.read_all(Path::new("m/MANIFEST-3")).unwrap(), b"ours");
    // Someone else's object under the key, found after a lost response: taken.
    let other = fs.clone();
    faulty.inject(
        Op::Put,
        Fault::RunThenFail(Box::new(move || {
            // The action runs inside the store's runtime; a blocking call needs a thread.
            run_on_other_thread(move || write(&other, "m/MANIFEST-4", b"theirs", true)).unwrap();
        })),
    );
    let err = write(&fs, "m/MANIFEST-4", b"ours", true).unwrap_err();
    assert!(err.is_already_exists(), "{err}");
    assert_eq!(fs.read_all(Path::new("m/MANIFEST-4")).unwrap(), b"theirs");
}

#[test]
fn with_a_cache_directory_own_writes_are_read_locally_and_large_ones_go_in_parts() {
    let cache = tempfile::tempdir().unwrap();
    let memory: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let fs = ObjectFs::new(
        store_over(Arc::clone(&memory)),
        fast_retry(),
        Some(cache.path().to_path_buf()),
    );
    let big: Vec<u8> = (0..(writer::SINGLE_PUT_LIMIT + 12_345))
        .map(|i| (i % 251) as u8)
        .collect();
    write(&fs, "/d/big.sst", &big, false).unwrap();
    assert!(cache.path().join("d/big.sst").is_file(), "local copy kept");
    assert!(!cache.path().join("d/big.spool").exists());
    // Another process (no local copy) reads the object from the store.
    let remote = ObjectFs::new(store_over(memory), fast_retry(), None);
    assert_eq!(remote.read_all(Path::new("/d/big.sst")).unwrap(), big);
    let local = fs.open_read(Path::new("/d/big.sst")).unwrap();
    assert_eq!(local.read_at(1_000, 3).unwrap(), &big[1_000..1_003]);
    assert_eq!(
        fs.list(Path::new("/d")).unwrap(),
        vec!["big.sst".to_string()]
    );
}

#[test]
fn rename_and_truncate_are_refused_with_a_clear_error() {
    let fs = ObjectFs::new(store_over(Arc::new(InMemory::new())), fast_retry(), None);
    let err = fs.rename(Path::new("a"), Path::new("b")).unwrap_err();
    assert!(
        err.to_string().contains("not supported on an object store"),
        "{err}"
    );
    assert!(fs.truncate(Path::new("a"), 0).is_err());
}
