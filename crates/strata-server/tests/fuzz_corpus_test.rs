//! Replays the committed fuzz corpus and crash inputs of the filter-language parser (see
//! `fuzz/` and docs/reliability-fuzz.md) on stable Rust, so `cargo test` guards them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use strata_server::fuzz_support;

/// Every input committed for `target`: its seed corpus (`fuzz/corpus/<target>`) and the
/// crashes it found (`fuzz/regressions/<target>`, kept after their fix).
// Reading the committed corpus is the point of this test; the engine's FileSystem is for the
// database's own files.
#[allow(clippy::disallowed_methods)]
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
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
#[allow(dead_code)]
fn replay_one(target: &str, name: &str, entry: fn(&[u8])) {
    let found: Vec<_> = inputs(target)
        .into_iter()
        .filter(|(path, _)| path.ends_with(name))
        .collect();
    assert_eq!(found.len(), 1, "{target}/{name} is committed once");
    entry(&found[0].1);
}

/// Replays every committed input of `target` through `entry`, naming the one that panics.
fn replay(target: &str, entry: fn(&[u8])) {
    for (name, bytes) in inputs(target) {
        let outcome = std::panic::catch_unwind(|| entry(&bytes));
        assert!(outcome.is_ok(), "{target}: input {name} fails");
    }
}

#[test]
fn filter_parse_corpus() {
    replay("filter_parse", fuzz_support::filter_parse);
}
