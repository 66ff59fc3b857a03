#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Damaged data files surface as `Error::Corruption`, never as data.

use std::path::{Path, PathBuf};

use strata_db::{Db, Error, Put, Scan, TableBuilder};

/// Every `.sst` file under `dir`.
#[allow(clippy::disallowed_methods)] // the test damages engine files on purpose
fn sst_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sst_files(&path));
        } else if path.extension().is_some_and(|e| e == "sst") {
            found.push(path);
        }
    }
    found
}

fn open_and_scan(dir: &Path) -> Result<usize, Error> {
    let db = Db::open(dir)?;
    let t = db.table("t")?;
    let mut rows = 0;
    for row in t.scan(Scan::new())? {
        row?;
        rows += 1;
    }
    Ok(rows)
}

#[test]
fn a_damaged_data_block_is_a_corruption_error() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path()).unwrap();
        let t = db
            .create_table(TableBuilder::new("t").family("cf"))
            .unwrap();
        for i in 0..500 {
            t.put(Put::new(format!("row{i:04}")).add("cf", "q", format!("value-{i:04}")))
                .unwrap();
        }
        db.close().unwrap();
    }
    assert_eq!(open_and_scan(dir.path()).unwrap(), 500);
    let files: Vec<PathBuf> = sst_files(&dir.path().join("regions"))
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("0000000000000000/"))
        .collect();
    assert!(!files.is_empty(), "the close flushed the table to a file");
    for file in &files {
        let mut bytes = std::fs::read(file).unwrap();
        // The first data block starts the file: damage bytes inside it.
        for b in &mut bytes[40..48] {
            *b ^= 0xff;
        }
        std::fs::write(file, bytes).unwrap();
    }
    let err = open_and_scan(dir.path()).unwrap_err();
    assert!(
        err.is_corruption(),
        "expected a corruption error, got {err:?}"
    );
}
