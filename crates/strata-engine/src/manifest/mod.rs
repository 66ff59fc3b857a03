//! The store manifest: the live file set of one store, written atomically.
//!
//! Each store (one column family of one region) keeps `MANIFEST-<20-digit number>` files in
//! its directory. Every file is a complete snapshot of [`ManifestState`]; SSTables become
//! live only by being listed in a committed manifest (they are never renamed into place,
//! since they may live on object storage). The byte format is specified in
//! `docs/format.md` ("Store manifest") and implemented in [`format`].
//!
//! Commit protocol (`Manifest::commit`): write `MANIFEST-(n+1)`, sync it, sync the
//! directory, and only then remove older manifests. Hence at most two manifests exist, and
//! an older one's presence means the newer one may not have become durable.
//!
//! Recovery rules (`Manifest::open`), for the newest manifest N:
//! - valid: load it and remove any older manifests;
//! - torn (shorter than its header or than the length its header declares, or all zero
//!   bytes) and an older valid manifest exists: N is an unfinished write from a crash;
//!   load the older one, warn, and remove N;
//! - torn and the only manifest: `Error::Corruption`, because starting empty would silently
//!   drop every SSTable; except for manifest 1, which by construction holds the empty state
//!   and is rewritten;
//! - complete length but bad checksum, magic, version or contents: `Error::Corruption`,
//!   even if an older manifest exists. A durable manifest that later rots must not roll the
//!   store back to an older file set, whose files compaction may already have deleted.
//!
//! Before removing any other manifest, open rewrites the one it loads durably (via
//! `MANIFEST.tmp` and a rename): after a process crash mid-commit the OS may hold a valid
//! newest manifest whose bytes never reached the disk.
//!
//! File numbers: callers take them from [`Manifest::allocate_file_number`] (an in-memory
//! counter) and need not touch `next_file_number`; each commit persists the counter.

pub(crate) mod fields;
mod files;
pub mod format;
pub mod inspect;
pub mod pointer;
mod shared;
mod state;
mod store;

#[cfg(test)]
mod fault_fs;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod test_util;

#[cfg(test)]
pub use files::manifest_file_name;
pub use files::parse_manifest_file_name;
pub use pointer::{InMemoryPointers, ManifestPointers, StorePointer};
pub use state::{FileOrigin, ManifestState, RowRange, StoreFileEntry};
pub use store::Manifest;
