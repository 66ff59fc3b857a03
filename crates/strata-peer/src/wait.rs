//! Waiting for a peer from a thread of a tokio runtime.
//!
//! The client blocks its calling thread, which is often a worker of a network server's
//! runtime (the Thrift server answers a point read on the connection's task). A worker
//! blocked for long stalls every task queued on it, so a long wait goes through
//! `block_in_place`, which hands the worker's tasks to another thread first. That hand-off
//! costs thread wake-ups: with it on every call, a forwarded cached read cost the
//! forwarding server 31–35 µs of CPU, without it 24–25 µs (`bench/cluster-forward.sh`).
//! So a call waits up to [`GRACE`] on the worker itself, as the Thrift server's own point
//! reads (and their block reads on a cache miss) do, and hands off only when the answer
//! is slower than that, or the request or answer is large.

use std::time::Duration;

use tokio::runtime::{Handle, RuntimeFlavor};

/// How long a runtime worker may wait for an answer before handing its tasks off. A
/// cached read's round trip is tens of microseconds on an idle machine, hundreds on a
/// busy one (8 readers on 2 cores: a 250 µs grace saved little); a write that waits for
/// the WAL, or a peer that is stuck, is slower and is waited for through
/// `block_in_place`. This bounds how long a worker's other tasks can be held up.
pub const GRACE: Duration = Duration::from_millis(1);

/// A request this large is written through `block_in_place`: it may fill the socket's
/// send buffer and block until the peer reads it.
pub const INLINE_REQUEST_BYTES: usize = 64 * 1024;

/// Whether the calling thread is a worker of a multi-threaded runtime, where blocking
/// must be announced with `block_in_place` (a current-thread runtime has no other
/// thread to hand its tasks to, and `block_in_place` panics there).
pub fn on_worker() -> bool {
    Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread)
}

/// Runs `wait` (a blocking wait for a peer), through `block_in_place` when `on_worker`.
pub fn blocking<T>(on_worker: bool, wait: impl FnOnce() -> T) -> T {
    if on_worker {
        tokio::task::block_in_place(wait)
    } else {
        wait()
    }
}
