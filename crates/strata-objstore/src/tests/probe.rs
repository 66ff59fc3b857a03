use std::sync::Arc;

use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;

use super::deps;
use crate::probe::{probe_atomic_create, PROBE_PUTS};
use crate::testing::{CheckThenPutStore, Fault, FaultyStore, Op};
use crate::{BlockingStore, Error, SeededTokens};

#[test]
fn passes_on_memory_and_a_local_directory() {
    let memory = BlockingStore::new(Arc::new(InMemory::new()), "memory://").unwrap();
    let report = probe_atomic_create(&memory, &SeededTokens::new(1), &deps(1).retry).unwrap();
    assert_eq!(report.refused, PROBE_PUTS - 1);

    let dir = tempfile::tempdir().unwrap();
    let local = LocalFileSystem::new_with_prefix(dir.path()).unwrap();
    let local = BlockingStore::new(Arc::new(local), "file:///tmp/x").unwrap();
    probe_atomic_create(&local, &SeededTokens::new(2), &deps(1).retry).unwrap();
    // The scratch object is removed afterwards.
    assert!(local.list(&"probe".into()).unwrap().is_empty());
}

#[test]
fn refuses_a_check_then_put_store_naming_it() {
    let racy = CheckThenPutStore::new(Arc::new(InMemory::new()), PROBE_PUTS);
    let store = BlockingStore::new(Arc::new(racy), "s3://racy-bucket/wal").unwrap();
    let err = probe_atomic_create(&store, &SeededTokens::new(1), &deps(1).retry).unwrap_err();
    assert!(matches!(err, Error::NonAtomicStore { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("s3://racy-bucket/wal"), "{text}");
    assert!(
        text.contains(&format!("{PROBE_PUTS} reported success")),
        "{text}"
    );
    assert!(text.contains("s3s-fs"), "{text}");
}

#[test]
fn an_unreachable_store_is_a_clear_error_naming_it() {
    let faulty = FaultyStore::new(Arc::new(InMemory::new()));
    for _ in 0..(PROBE_PUTS * 10) {
        faulty.inject(Op::Put, Fault::FailBefore);
    }
    let store = BlockingStore::new(Arc::new(faulty), "s3://down-bucket/p").unwrap();
    let err = probe_atomic_create(&store, &SeededTokens::new(1), &deps(1).retry).unwrap_err();
    assert!(err.kind().is_retryable(), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("s3://down-bucket/p") && text.contains("unreachable"),
        "{text}"
    );
}

#[test]
fn a_real_unreachable_s3_endpoint_is_named() {
    // Port 9 (discard) on loopback: nothing listens, so the connection is refused at once.
    let err = with_env(
        &[
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_ACCESS_KEY_ID", "k"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
        ],
        || {
            let store = crate::open_store("s3://no-such-bucket/p").unwrap();
            let mut retry = deps(1).retry;
            retry.attempts = 1;
            probe_atomic_create(&store, &SeededTokens::new(1), &retry).unwrap_err()
        },
    );
    let text = err.to_string();
    assert!(
        text.contains("s3://no-such-bucket/p") && text.contains("unreachable"),
        "{text}"
    );
}

/// Runs `f` with environment variables set. Only this test sets AWS_* variables, so the
/// process-wide change cannot disturb another test.
fn with_env<T>(vars: &[(&str, &str)], f: impl FnOnce() -> T) -> T {
    for (k, v) in vars {
        // A safe function in edition 2021; no other test of this binary reads AWS_*.
        std::env::set_var(k, v);
    }
    let out = f();
    for (k, _) in vars {
        std::env::remove_var(k);
    }
    out
}
