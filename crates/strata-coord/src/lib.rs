//! Cluster coordination for Strata over etcd (design record:
//! `docs/rfcs/0006-coordination.md`; keys and values: `docs/format.md`, "Cluster metadata
//! in etcd").
//!
//! - [`coordinator`]: [`KvCoordinator`] (sessions, membership, region directory with
//!   epochs, manifest pointers, split/merge, master election), written over [`MetaKv`];
//! - [`lease`]: a server's lease and its own-clock deadline (the acknowledgement rule);
//!   [`keeper`]: the thread that keeps it alive;
//! - [`kv`]: the slice of etcd's model the coordinator uses;
//! - [`etcd`]: [`MetaKv`] on a real etcd (`etcd-client`); [`mem`]: its in-memory twin on
//!   an injected clock, for deterministic tests;
//! - [`keys`], [`records`]: the key layout and the versioned values.

mod catalog;
pub mod coordinator;
mod directory;
mod election;
pub mod error;
pub mod etcd;
mod held;
pub mod keeper;
pub mod keys;
pub mod kv;
pub mod lease;
mod load;
pub mod mem;
pub mod records;
mod session;
mod streams;

#[cfg(test)]
mod tests;

pub use coordinator::{
    Campaign, CoordOptions, Epoch, Incarnation, KvCoordinator, Leadership, LeaseRenewal,
    LiveServer, MasterInfo, MembershipEvent, MembershipWatch, Owner, Region,
};
pub use error::{Error, ErrorKind, Result};
pub use etcd::EtcdKv;
pub use keeper::KeepAlive;
pub use keys::{Keys, RegionId};
pub use kv::{MetaKv, SharedKv};
pub use lease::Lease;
pub use mem::MemKv;
pub use records::{
    HeldRecord, LoadRecord, ManifestPointer, RegionRecord, RegionState, StreamRecord,
};

/// The coordinator on etcd.
pub type EtcdCoordinator = KvCoordinator<EtcdKv>;

/// The coordinator on the in-memory twin.
pub type MemCoordinator = KvCoordinator<MemKv>;

/// The coordinator on whichever KV the composition root handed over.
pub type SharedCoordinator = KvCoordinator<SharedKv>;
