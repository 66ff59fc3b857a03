//! Strata's cluster mode (`docs/cluster.md`): servers on etcd and an S3-compatible object
//! store. This first stage is active/standby: every server joins, one is elected master
//! and serves every region from the object store, the others pass their clients'
//! connections through to it, and when it dies one of them takes over by sealing its WAL
//! stream and replaying it. No data is copied: every durable byte is an object.
//!
//! - [`node`]: joining (etcd, store probe, lease, keepalive) and the election;
//! - [`takeover`]: sealing dead streams and opening the engine on the store;
//! - [`ownership`]: regions owned, with epochs (the registry and the manifest pointers);
//! - [`maintenance`]: the master's housekeeping (a short live WAL, its progress in etcd);
//! - [`proxy`]: a standby's pass-through to the master;
//! - [`status`]: `strata cluster status`.

pub mod catalog;
pub mod config;
pub mod error;
pub mod follower;
pub mod maintenance;
pub mod moves;
pub mod node;
pub mod ownership;
pub mod placement;
pub mod proxy;
pub mod recovered;
pub mod retire;
pub mod status;
pub mod takeover;

pub use config::{ClusterConfig, Endpoints};
pub use error::{Error, Result};
pub use node::ClusterNode;
pub use ownership::Ownership;
pub use status::ClusterStatus;
