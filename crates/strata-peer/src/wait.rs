//! Waiting for a peer from a thread of a tokio runtime.
//!
//! The client blocks its calling thread. The network servers never call it from an async
//! worker: a read they answer on the connection's task runs only while its region is
//! open here, and goes to the blocking pool when a peer owns it
//! (`strata_server::inline`). A call that still arrives on a worker (a path not yet moved
//! off it) is made whole through `block_in_place`, which hands the worker's other tasks to
//! another thread before blocking, and is counted: [`calls_on_async_workers`] is exported
//! as `strata_peer_calls_on_async_workers_total`, and the cluster tests expect it to stay 0.

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::runtime::{Handle, RuntimeFlavor};

static CALLS_ON_ASYNC_WORKERS: AtomicU64 = AtomicU64::new(0);

/// Peer calls this process made from a worker of a multi-threaded tokio runtime.
pub fn calls_on_async_workers() -> u64 {
    CALLS_ON_ASYNC_WORKERS.load(Ordering::Relaxed)
}

/// The flavor of the runtime whose async worker the calling thread is, if it is one. A
/// thread of the blocking pool, or one that drives a runtime through `block_on`, is not.
fn async_worker() -> Option<RuntimeFlavor> {
    tokio::runtime::worker_index()?;
    Handle::try_current().ok().map(|h| h.runtime_flavor())
}

/// Runs `call` (a whole blocking call to a peer): directly off the async workers; on one,
/// counted (and logged the first time), through `block_in_place` where the runtime has
/// other threads to hand the worker's tasks to.
pub fn off_worker<T>(method: &str, call: impl FnOnce() -> T) -> T {
    let Some(flavor) = async_worker() else {
        return call();
    };
    if CALLS_ON_ASYNC_WORKERS.fetch_add(1, Ordering::Relaxed) == 0 {
        tracing::warn!(
            method,
            "a peer call was made from an async worker; it blocks the worker \
             (strata_peer_calls_on_async_workers_total counts them)"
        );
    }
    match flavor {
        RuntimeFlavor::MultiThread => tokio::task::block_in_place(call),
        // A current-thread runtime has no other thread (`block_in_place` panics there).
        _ => call(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods)] // a task on a test's own runtime
    fn only_a_call_on_an_async_worker_is_counted() {
        let before = calls_on_async_workers();
        assert_eq!(off_worker("plain thread", || 1), 1);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let on_pool = runtime.block_on(async {
            let on_blocking_pool = tokio::task::spawn_blocking(|| off_worker("pool", || 2));
            on_blocking_pool.await.unwrap()
        });
        assert_eq!(on_pool, 2);
        assert_eq!(
            calls_on_async_workers(),
            before,
            "neither thread is an async worker"
        );
        let on_worker = runtime.block_on(async {
            tokio::spawn(async { off_worker("worker", || 3) })
                .await
                .unwrap()
        });
        assert_eq!(on_worker, 3);
        assert!(
            calls_on_async_workers() > before,
            "a task's call is counted"
        );
    }
}
