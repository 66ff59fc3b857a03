//! The replay harness shared by the `tests/fuzz_corpus_test.rs` of the engine, server, thrift
//! and grpc crates (each includes this file with `#[path]`): it runs the committed corpus and
//! crash inputs of a fuzz target through the same entry point the target fuzzes.

/// Every input committed for `target`: its seed corpus (`fuzz/corpus/<target>`) and the
/// crashes it found (`fuzz/regressions/<target>`, kept after their fix).
// Reading the committed corpus is the point of this test; the engine's FileSystem is for the
// database's own files.
#[allow(clippy::disallowed_methods)]
pub fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut out = Vec::new();
    for kind in ["corpus", "regressions"] {
        let dir = root.join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            out.push((path.display().to_string(), bytes));
        }
    }
    out.sort();
    assert!(
        !out.is_empty(),
        "no committed inputs for fuzz target {target}"
    );
    out
}

/// Replays one committed input of `target` by file name.
#[allow(dead_code)] // not every crate keeps a named crash input
pub fn replay_one(target: &str, name: &str, entry: fn(&[u8])) {
    let found: Vec<_> = inputs(target)
        .into_iter()
        .filter(|(path, _)| path.ends_with(name))
        .collect();
    assert_eq!(found.len(), 1, "{target}/{name} is committed once");
    entry(&found[0].1);
}

/// Replays every committed input of `target` through `entry`, naming the one that panics.
pub fn replay(target: &str, entry: fn(&[u8])) {
    for (name, bytes) in inputs(target) {
        let outcome = std::panic::catch_unwind(|| entry(&bytes));
        assert!(outcome.is_ok(), "{target}: input {name} fails");
    }
}
