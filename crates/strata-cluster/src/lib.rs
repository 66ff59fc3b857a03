//! Strata's cluster mode (`docs/cluster.md`, RFC 0008): servers on etcd and an
//! S3-compatible object store, every durable byte an object. Regions are spread over the
//! servers, and every server serves clients, routing each request to the region's owner;
//! the elected master writes the catalog, assigns, moves and splits regions, and carries
//! out the administration the other servers send it. When a
//! server dies its WAL stream is sealed and its regions reopen elsewhere, replaying their
//! sections. No data is copied.
//!
//! Every server runs:
//! - [`server`]: [`ClusterServer`], one server assembled from a configuration and the
//!   [`ClusterDeps`] a composition root hands in ([`deps`]);
//! - [`node`]: joining (store probe, lease, keepalive) and the election;
//! - [`ownership`]: the regions it claims, with epochs (the registry and the manifest
//!   pointers), placed by the [`view`] of the directory it follows, through its [`peers`];
//! - [`follower`]: the loop that keeps it in step with the cluster ([`rounds`]);
//! - [`recovered`]: replaying a dead server's stream per region as it opens here;
//! - [`engine_options`]: its engine on the object store ([`objects`]: the names there);
//! - [`catalog`]: the service's catalog in etcd;
//! - [`maintenance`], [`load_meter`]: its housekeeping (a short live WAL, its progress and
//!   load in etcd);
//! - [`master_link`]: where the master is, for the administration it sends it;
//! - [`status`]: `strata cluster status`.
//!
//! Only the master, while it leads:
//! - [`master`]: assignment, moves, balancing, sealing, retirement ([`master::MasterRole`]);
//! - [`gc`]: the garbage collector, the only deleter of objects.

pub mod catalog;
pub mod config;
pub mod deps;
pub mod engine_options;
pub mod error;
pub mod follower;
pub mod gc;
pub mod load_meter;
pub mod maintenance;
pub mod master;
pub mod master_link;
pub mod node;
pub mod objects;
pub mod ownership;
pub mod peers;
pub mod recovered;
pub mod rounds;
pub mod server;
pub mod status;
pub mod view;

pub use config::{ClusterConfig, Endpoints};
pub use deps::{ClusterDeps, RandomIds, SeededIds, ServerIds};
pub use error::{Error, Result};
pub use node::ClusterNode;
pub use ownership::Ownership;
pub use server::{ClusterServer, ClusterServerConfig};
pub use status::ClusterStatus;
