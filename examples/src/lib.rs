//! Helpers shared by the examples: where the database lives, and how an example reports a
//! wrong result.

use std::path::PathBuf;

use strata_db::{Db, Table, TableBuilder};

/// Where an example keeps its database: the directory given as the first argument, or a
/// temporary directory removed when this value is dropped.
pub struct DataDir {
    path: PathBuf,
    _temporary: Option<tempfile::TempDir>,
}

impl DataDir {
    /// The first command-line argument, or a fresh temporary directory.
    pub fn from_args() -> Result<DataDir, String> {
        if let Some(path) = std::env::args_os().nth(1) {
            return Ok(DataDir {
                path: PathBuf::from(path),
                _temporary: None,
            });
        }
        let dir = tempfile::tempdir().map_err(|e| format!("cannot create a temp dir: {e}"))?;
        Ok(DataDir {
            path: dir.path().to_path_buf(),
            _temporary: Some(dir),
        })
    }

    /// The directory.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

/// Fails with `message` unless `condition` holds.
pub fn ensure(condition: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if condition {
        Ok(())
    } else {
        Err(message())
    }
}

/// Runs an example's body: prints its error and exits with status 1 if it fails.
pub fn run(name: &str, body: impl FnOnce() -> Result<(), String>) {
    match body() {
        Ok(()) => println!("{name}: all checks passed"),
        Err(message) => {
            eprintln!("{name}: FAILED: {message}");
            std::process::exit(1);
        }
    }
}

/// Creates the table, replacing one left by an earlier run in the same directory.
pub fn fresh_table(db: &Db, table: TableBuilder, name: &str) -> Result<Table, String> {
    if db.table(name).is_ok() {
        db.disable_table(name).map_err(|e| e.to_string())?;
        db.delete_table(name).map_err(|e| e.to_string())?;
    }
    db.create_table(table).map_err(|e| e.to_string())
}

/// Turns any error into the message an example reports.
pub fn msg(context: &str) -> impl Fn(strata_db::Error) -> String + '_ {
    move |e| format!("{context}: {e}")
}
