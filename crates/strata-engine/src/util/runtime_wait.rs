//! Waiting for a future on a runtime a client owns, from any thread. The object store's
//! and etcd's clients each own a tokio runtime and are called synchronously: from plain
//! threads, but also from a worker of the server's own runtime (a network server answering
//! a point read on its task). Blocking on a runtime from inside another one panics, so
//! there the wait happens on a short-lived thread of its own, the calling worker telling
//! its runtime that it blocks.

use std::future::Future;

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

/// Runs `future` to completion on `runtime`. `Err` only if no thread could be started to
/// wait on (the process is out of threads).
pub fn block_on<F>(runtime: &Runtime, future: F) -> std::io::Result<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let Ok(handle) = Handle::try_current() else {
        return Ok(runtime.block_on(future));
    };
    let wait = || {
        std::thread::scope(|scope| {
            let waiter = super::thread::spawn_scoped(scope, "strata-runtime-wait", || {
                runtime.block_on(future)
            });
            waiter.map(|w| w.join())
        })
    };
    let outcome = if handle.runtime_flavor() == RuntimeFlavor::MultiThread {
        tokio::task::block_in_place(wait)
    } else {
        wait()
    };
    match outcome? {
        Ok(output) => Ok(output),
        // The future panicked on the waiter thread: the panic goes on here, as it would
        // have without the thread.
        Err(payload) => std::panic::resume_unwind(payload),
    }
}
