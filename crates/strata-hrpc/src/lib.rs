//! HBase's native RPC for Strata: what `hbase-client` 2.5/2.6 speaks to region servers and
//! masters, so a Java application written for HBase runs against Strata with only its
//! ZooKeeper quorum (or RPC bootstrap servers) changed.
//!
//! One port serves every service: the connection header names the one a connection
//! uses (`ClientService`, `MasterService`, `ClientMetaService`, `AdminService`). No Rust
//! crate implements this protocol's server side, so the framing (`wire/`) is written here;
//! the messages are generated from `proto/`, a subset of HBase's IDL.
//!
//! - `wire/`: preamble, frames, cell blocks (pure bytes);
//! - `connection.rs`, `server.rs`: sockets; `dispatch.rs`: service and method to handler;
//! - `registry.rs` (ClientMetaService), `master/` (MasterService), `client/`
//!   (ClientService), `meta/` (hbase:meta computed from the region directory);
//! - `topology.rs`: who the master and the region owners are, as clients are told.

pub mod call;
pub mod client;
pub mod connection;
pub mod context;
pub mod dispatch;
pub mod exception;
pub mod fuzz_support;
pub mod master;
pub mod meta;
pub mod pb;
pub mod region_name;
pub mod registry;
pub mod results;
pub mod server;
pub mod topology;
pub mod wire;
pub mod znodes;

pub use context::Context;
pub use server::{serve, serve_listener, ServeError, ServerLimits};
pub use topology::{ServerAddr, SingleServer, Topology};

/// The start of every znode's content HBase writes: "PBUF", then a protobuf message.
pub const PB_MAGIC: &[u8; 4] = b"PBUF";
