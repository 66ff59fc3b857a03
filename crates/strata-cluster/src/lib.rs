//! Strata's cluster mode (`docs/cluster.md`, RFC 0008): servers on etcd and an
//! S3-compatible object store, every durable byte an object. Regions are spread over the
//! servers, and every server serves clients, routing each request to the region's owner;
//! the elected master writes the catalog, assigns, moves and splits regions, and carries
//! out the administration the other servers send it. When a
//! server dies its WAL stream is sealed and its regions reopen elsewhere, replaying their
//! sections. No data is copied.
//!
//! - [`server`]: [`ClusterServer`], one server assembled from a configuration and the
//!   [`ClusterDeps`] a composition root hands in ([`deps`]); [`master_role`]: what exists
//!   only while it leads;
//! - [`node`]: joining (store probe, lease, keepalive) and the election;
//! - [`catalog`]: the service's catalog in etcd;
//! - [`ownership`]: regions owned, with epochs (the registry and the manifest pointers);
//! - [`placement`]: where each region is served, and the master's assignments;
//! - [`recovered`], [`retire`]: replaying a dead server's stream per region, and retiring it;
//! - [`moves`]: moves, the balancer, decommissioning, split requests;
//! - [`assignment`]: `unassign` and `assign`;
//! - [`follower`]: the loop that keeps a server in step with the cluster;
//! - [`takeover`]: sealing dead streams and pointing the engine at the store;
//! - [`directory_care`]: region ids above all in use, records no table lists removed (RFC 0010);
//! - [`unclaimed`]: assigning again what nobody took up (a move a dead master left half done);
//! - [`gc`]: the master's garbage collector, the only deleter of objects;
//! - [`maintenance`]: a server's housekeeping (a short live WAL, its progress in etcd);
//! - [`master_link`]: where the master is, for the administration other servers send it;
//! - [`status`]: `strata cluster status`.

pub mod assignment;
pub mod balance_load;
pub mod catalog;
pub mod config;
pub mod deps;
pub mod directory_care;
pub mod error;
pub mod follower;
pub mod gc;
pub mod load_meter;
pub mod maintenance;
pub mod master_link;
pub mod master_role;
pub mod moves;
pub mod node;
pub mod ownership;
pub mod placement;
pub mod recovered;
pub mod retire;
pub mod server;
pub mod status;
pub mod takeover;
pub mod unclaimed;

pub use config::{ClusterConfig, Endpoints};
pub use deps::{ClusterDeps, RandomIds, SeededIds, ServerIds};
pub use error::{Error, Result};
pub use node::ClusterNode;
pub use ownership::Ownership;
pub use server::{ClusterServer, ClusterServerConfig};
pub use status::ClusterStatus;
