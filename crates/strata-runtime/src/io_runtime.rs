//! The one tokio runtime a process's network clients share, and waiting on it from any
//! thread.
//!
//! etcd's client and the object store's are asynchronous; their callers (the engine's WAL,
//! the cluster's rounds, a network server answering a read on its task) are not. Each
//! client used to start a runtime of its own; a composition root now starts one
//! [`IoRuntime`] and hands it to both, so a server runs one pool of I/O threads however
//! many clients it has.
//!
//! Blocking on a runtime from inside another one panics, so a caller that is itself on a
//! runtime's worker waits on a short-lived thread of its own, the worker telling its
//! runtime that it blocks.

use std::fmt;
use std::future::Future;
use std::io;
use std::sync::Arc;

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

/// A shared multi-threaded runtime for network clients; cheap to clone (the runtime stops
/// when the last clone is dropped, which must not happen on a runtime's worker).
#[derive(Clone)]
pub struct IoRuntime {
    runtime: Arc<Runtime>,
    name: Arc<str>,
}

impl fmt::Debug for IoRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IoRuntime")
            .field("name", &self.name)
            .finish()
    }
}

impl IoRuntime {
    /// Starts a runtime of `threads` workers (at least one) named `name`, with timers
    /// and sockets.
    pub fn start(name: &str, threads: usize) -> io::Result<IoRuntime> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads.max(1))
            .thread_name(name)
            .enable_all()
            .build()?;
        Ok(IoRuntime {
            runtime: Arc::new(runtime),
            name: name.into(),
        })
    }

    /// The name its threads carry.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A handle to spawn on (for clients that keep background tasks, such as lease
    /// keep-alives).
    pub fn handle(&self) -> &Handle {
        self.runtime.handle()
    }

    /// Runs `future` to completion on this runtime, from any thread. `Err` only if no
    /// thread could be started to wait on (the process is out of threads).
    pub fn block_on<F>(&self, future: F) -> io::Result<F::Output>
    where
        F: Future + Send,
        F::Output: Send,
    {
        let Ok(current) = Handle::try_current() else {
            return Ok(self.runtime.block_on(future));
        };
        let wait = || {
            std::thread::scope(|scope| {
                let waiter = crate::thread::spawn_scoped(scope, "strata-runtime-wait", || {
                    self.runtime.block_on(future)
                });
                waiter.map(|w| w.join())
            })
        };
        let outcome = if current.runtime_flavor() == RuntimeFlavor::MultiThread {
            tokio::task::block_in_place(wait)
        } else {
            wait()
        };
        match outcome? {
            Ok(output) => Ok(output),
            // The future panicked on the waiter thread: the panic goes on here, as it
            // would have without the thread.
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::IoRuntime;

    #[test]
    fn a_plain_thread_waits_on_the_runtime() {
        let io = IoRuntime::start("strata-test-io", 1).unwrap();
        let name = io
            .block_on(async { std::thread::current().name().map(str::to_owned) })
            .unwrap();
        // block_on from outside any runtime drives the future on the calling thread.
        assert_eq!(name, std::thread::current().name().map(str::to_owned));
        let spawned = io.handle().spawn(async { 6 * 7 });
        assert_eq!(io.block_on(spawned).unwrap().unwrap(), 42);
    }

    #[test]
    fn a_worker_of_another_runtime_waits_without_panicking() {
        let io = IoRuntime::start("strata-test-io", 1).unwrap();
        let outer = IoRuntime::start("strata-test-outer", 2).unwrap();
        let io_inside = io.clone();
        let answer = outer
            .block_on(async move { outer_task(io_inside).await })
            .unwrap();
        assert_eq!(answer, 7);
        // Dropped here, off every runtime's workers.
        drop(outer);
    }

    async fn outer_task(io: IoRuntime) -> u32 {
        let handle = tokio::runtime::Handle::current();
        handle
            .spawn(async move { io.block_on(async { 7 }).unwrap() })
            .await
            .unwrap()
    }

    #[test]
    fn a_panic_in_the_future_reaches_the_caller() {
        let io = IoRuntime::start("strata-test-io", 1).unwrap();
        let outer = IoRuntime::start("strata-test-outer", 2).unwrap();
        let io_inside = io.clone();
        let caught = outer.block_on(async move {
            tokio::runtime::Handle::current()
                .spawn(async move { io_inside.block_on(async { panic!("boom") }) })
                .await
        });
        assert!(caught.unwrap().is_err(), "the task should have panicked");
    }
}
