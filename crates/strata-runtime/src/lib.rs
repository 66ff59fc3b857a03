//! The seams every Strata crate runs on, and nothing else: no crate here knows about
//! cells, regions or protocols.
//!
//! - [`clock`]: wall-clock and monotonic time behind a trait, so tests move time;
//! - [`thread`]: the one way a thread is started (named, failing with an error);
//! - [`wait`]: condition-variable waits against a deadline of the injected clock;
//! - [`io_runtime`]: the one tokio runtime a process's network clients (etcd, the object
//!   store) share, and waiting on it from any thread;
//! - [`ErrorKind`]: what a caller can do about an error, the distinction every crate's
//!   typed errors map to and every adapter maps from.
//!
//! clippy's `disallowed-methods` (the workspace's `clippy.toml`) bans the system clock,
//! `std::thread::spawn`, `tokio::spawn` and the global random source everywhere else;
//! only these modules and the composition roots (the binary, tools) allow themselves.

pub mod clock;
mod error_kind;
#[cfg(feature = "io")]
pub mod io_runtime;
pub mod thread;
pub mod wait;

pub use error_kind::ErrorKind;
#[cfg(feature = "io")]
pub use io_runtime::IoRuntime;
