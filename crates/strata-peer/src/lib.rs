//! Internal RPC between Strata servers in cluster mode.
//!
//! A server forwards the share of a request that falls in a region another server serves
//! through the primitives of [`strata_server::remote::RegionPeer`] (`get`, `mutate`,
//! `mutate_if`, `scan_chunk`, `maintain`, `admin`). This crate carries them: [`serve`]
//! answers them from a local [`strata_server::Service`], and [`PeerClient`] is the
//! `RegionPeer` a forwarding server holds for each other server.
//!
//! # The transport, and why it is written here
//!
//! Protocol version 3 (framed since version 2) is messages over plain TCP connections
//! (`docs/format.md`, "Internal RPC (cluster mode)"): a length, a method code and a prost
//! message; the answer a length, a status byte and the response (or an
//! [`messages::ErrorDetail`]).
//! The client is synchronous like its callers: the calling thread takes a pooled
//! connection, writes the request and reads the answer itself. The server serves each
//! connection on a thread of its own, calling the service inline.
//!
//! Version 1 was gRPC (tonic). A forwarded cached point read then cost about 90 µs of CPU
//! across the two servers against 12.5 µs for a local one (`docs/performance.md`,
//! "Cluster mode: what forwarding costs"): the cost was not the messages but the
//! asynchronous stack around them, each call crossing from the caller to the client's
//! runtime, to HTTP/2's connection task and back, and on the owner from the connection
//! task to the service's task to a blocking section. No well-kept crate offers a
//! synchronous, thread-per-connection request/answer RPC without that machinery, and
//! what is needed is small: framing (`frame.rs`), the protocol's constants (`wire.rs`), a
//! connection (`conn.rs`) and their pool (`pool.rs`), the client (`client.rs`, with
//! `wait.rs`, which counts calls made on an async worker), and the server (`server.rs`,
//! `session.rs`, `dispatch.rs`).
//!
//! The messages are hand-written prost types ([`messages`]): building needs no `protoc`.

mod client;
mod conn;
pub mod convert;
mod dispatch;
mod errors;
pub mod frame;
pub mod messages;
mod pool;
mod server;
mod session;
mod wait;
pub mod wire;

pub use client::{PeerClient, PeerClientError, ADMIN_DEADLINE, DEFAULT_DEADLINE};
pub use errors::{detail_to_error, error_to_detail};
pub use server::{serve, serve_with, ServeOptions, IDLE_TIMEOUT};
pub use wait::calls_on_async_workers;

/// The largest message either side sends or accepts. One forwarded request carries
/// whatever a client batched into a region (a multi-put, a Bigtable value of up to
/// `limits.grpc_max_value_bytes`, 100 MiB by default) and one answer a scan chunk of up
/// to 256 rows, however wide. The front ends' own limits bound what a client may send;
/// this is only a ceiling against a runaway message, set above them so that nothing they
/// accept fails between two servers.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;
