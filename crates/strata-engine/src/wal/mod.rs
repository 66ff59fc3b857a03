//! The write-ahead log: segmented, CRC32C-framed, group commit.
//!
//! One [`Wal`] serves every region of a process. Each region write batch becomes one
//! [`WalEdit`], logged as one record, so a batch is all-or-nothing on replay. Layout:
//! - [`edit`]: the edit and its payload encoding;
//! - [`format`]: segment names, segment header, record framing (format version 1);
//! - `reader` / `recovery`: replay at open, torn-tail repair, corruption detection;
//! - `group_commit` / `writer`: the write path; `backend`: the seam where batches are
//!   stored (`local` + `segment`: segment files; `strata-objstore`: WAL objects);
//!   `flusher`: `AsyncWal` flushes;
//! - [`stats`]: counters and the sync latency histogram;
//! - `groups`: several WALs (HBase's `multiwal`), each region logging to one of them.
//!
//! The byte-level spec is `docs/format.md`, "Write-ahead log".

mod backend;
pub mod edit;
mod flusher;
pub mod format;
mod group_commit;
mod groups;
pub mod inspect;
mod local;
mod reader;
pub(crate) mod recovery;
mod segment;
pub mod stats;
mod writer;

#[cfg(test)]
mod tests;

pub use backend::{WalBackend, WalBackendOpener, WalBatch};
pub use edit::WalEdit;
pub use group_commit::{FailureGuard, Ticket};
pub(crate) use groups::open_groups;
pub use groups::{WalGroupStats, WalGroups};
pub use stats::WalStats;
pub use writer::Wal;
