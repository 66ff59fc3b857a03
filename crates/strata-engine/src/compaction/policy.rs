//! Compaction file selection.
