//! Shared test setup: a database in a temporary directory.
#![allow(dead_code)]

use strata_db::{Db, Family, Table, TableBuilder};

/// A fresh database; keep the directory alive as long as the database.
pub fn open() -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path()).unwrap();
    (dir, db)
}

/// A table `t` with families `cf` (5 versions) and `other`.
pub fn table(db: &Db) -> Table {
    db.create_table(
        TableBuilder::new("t")
            .family(Family::new("cf").versions(5))
            .family("other"),
    )
    .unwrap()
}

/// The keys of rows, as strings.
pub fn keys(rows: &[strata_db::Row]) -> Vec<String> {
    rows.iter()
        .map(|r| String::from_utf8_lossy(r.key()).into_owned())
        .collect()
}
