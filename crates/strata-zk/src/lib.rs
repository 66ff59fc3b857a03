//! A read-only ZooKeeper-protocol facade: enough of ZooKeeper's client protocol that an
//! unmodified HBase client (and go-zookeeper, under gohbase) finds a Strata cluster through
//! `hbase.zookeeper.quorum`, with no ZooKeeper running.
//!
//! It serves the reads HBase's `ReadOnlyZKClient` makes (getData, getChildren, exists)
//! and what a client's session needs around them (the handshake, pings, closeSession,
//! setWatches on reconnect, sync, getACL), from a [`ZkTree`] asked on every request.
//! Writes are refused with NOTREADONLY; watches are accepted and never fire. See
//! docs/zookeeper.md for what is served, what is refused, and the limits.
//!
//! The jute codec is written here by hand: the Rust ZooKeeper crates are clients, and none
//! offers the server side of the protocol.
//!
//! Layers, bottom up: `jute` (the encoding), `records` (the messages), `frame` (length
//! prefixes), `session` (ids, passwords, expiry), `handshake` (the first frame), `answer`
//! (one request to one reply, pure), `connection` and `server` (the I/O).

mod answer;
mod config;
mod connection;
mod frame;
mod handshake;
pub mod jute;
pub mod protocol;
pub mod records;
mod server;
mod session;
mod tree;

pub mod fuzz_support;

pub use answer::SERVED_ZXID;
pub use config::ZkConfig;
pub use server::{serve, serve_listener, ServeError};
pub use tree::{ComputeFn, ComputedTree, InvalidPath, ZkNode, ZkTree};
