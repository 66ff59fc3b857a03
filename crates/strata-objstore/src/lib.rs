//! Object-store access and the WAL-as-objects format with fencing, for Strata's cluster
//! mode (design record: `docs/rfcs/0005-object-wal.md`; bytes: `docs/format.md`, "WAL
//! objects").
//!
//! - [`location`]: store URLs (`s3://`, `file://`, `hdfs://`, `memory://`) → a
//!   [`BlockingStore`];
//! - [`store`]: the blocking facade the engine's synchronous group commit calls;
//! - [`probe`]: refuses a store whose create-if-absent is not atomic;
//! - [`format`]: WAL object format version 1 (header, region sections, footer, trailer);
//! - [`stream`], [`writer`], [`fencer`], [`reader`]: one server's stream of create-only
//!   objects, how a master seals it, and how a new owner replays its regions;
//! - [`engine_wal`]: the engine's `WalBackend` on a stream (cluster mode's WAL);
//! - [`testing`]: fault-injecting stores for deterministic protocol tests.

pub mod engine_wal;
pub mod error;
pub mod fencer;
pub mod format;
mod hdfs;
mod latency;
pub mod location;
pub mod object_fs;
pub mod probe;
pub mod reader;
pub mod recovery;
pub mod retry;
pub mod store;
pub mod stream;
pub mod testing;
pub mod token;
pub mod whole;
pub mod writer;

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // real time, runtimes and randomness in these tests
mod tests;

pub use engine_wal::{replay_stream, AckGate, ObjectWal, ObjectWalOpener, StreamProgress};
pub use error::{Error, ErrorKind, Result};
pub use fencer::{fence_stream, Fenced};
pub use format::WalObjectBuilder;
pub use location::{open_store, open_store_on, open_store_with, StoreOptions, StoreUrl};
pub use object_fs::ObjectFs;
pub use probe::{probe_atomic_create, ProbeReport};
pub use reader::{list_stream, replayable, StreamObject, StreamReader};
pub use recovery::{fenced_region_edits, list_streams};
pub use retry::RetryPolicy;
pub use store::{BlockingStore, CreateOutcome};
pub use stream::StreamId;
pub use token::{RandomTokens, SeededTokens, TokenSource, WriterToken};
pub use writer::{Durable, WalStreamWriter, WriterDeps};
