//! HBase Thrift1 front end.

// The generated code decodes lists through `unsafe` blocks (pilota's own, not ours); the
// workspace denies unsafe code, so the exception is scoped to this module alone.
#[allow(unsafe_code, clippy::all, warnings, unused)]
pub mod gen {
    include!(concat!(env!("OUT_DIR"), "/volo_gen.rs"));
}

pub mod binary_check;
mod binary_walk;
pub mod codec;
pub mod columns;
pub mod compact;
pub mod connection_codec;
pub mod connection_scope;
pub mod descriptor;
pub mod failure;
pub mod fuzz_support;
pub mod handler;
pub mod limits;
pub mod mutations;
pub mod ops;
mod reply_encoder;
pub mod request_reader;
pub mod results;
pub mod schema;
mod schema_check;
pub mod server;

pub use limits::{ConnectionCount, ThriftLimits};
pub use server::{serve, serve_listener, serve_listener_with, serve_tls_listener_with, ServeError};
