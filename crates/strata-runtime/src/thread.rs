//! The one way Strata starts a thread. Every background thread has a name (it shows in
//! `top -H`, panics and debuggers), and a failure to start one is an error the caller
//! sees, not a panic. clippy's `disallowed-methods` bans `std::thread::spawn` and
//! `Builder::spawn` elsewhere, so this is the seam a test harness or a different
//! runtime replaces.

use std::io;
use std::thread::{JoinHandle, Scope, ScopedJoinHandle};

/// Starts a thread named `name` running `body`.
pub fn spawn<F, T>(name: impl Into<String>, body: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    #[allow(clippy::disallowed_methods)] // the one place a thread is started
    std::thread::Builder::new().name(name.into()).spawn(body)
}

/// Starts a thread named `name` running `body` in `scope` (see `std::thread::scope`): for
/// workers that borrow from their caller's stack and end before it returns.
pub fn spawn_scoped<'scope, F, T>(
    scope: &'scope Scope<'scope, '_>,
    name: impl Into<String>,
    body: F,
) -> io::Result<ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    #[allow(clippy::disallowed_methods)] // the one place a scoped thread is started
    std::thread::Builder::new()
        .name(name.into())
        .spawn_scoped(scope, body)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_spawned_thread_has_its_name_and_result() {
        let handle = super::spawn("strata-test-thread", || {
            std::thread::current().name().map(str::to_owned)
        })
        .unwrap();
        assert_eq!(
            handle.join().unwrap().as_deref(),
            Some("strata-test-thread")
        );
    }

    #[test]
    fn a_scoped_thread_borrows_and_is_named() {
        let words = ["scoped", "thread"];
        let (name, joined) = std::thread::scope(|scope| {
            super::spawn_scoped(scope, "strata-test-scoped", || {
                let name = std::thread::current().name().map(str::to_owned);
                (name, words.join(" "))
            })
            .unwrap()
            .join()
            .unwrap()
        });
        assert_eq!(name.as_deref(), Some("strata-test-scoped"));
        assert_eq!(joined, "scoped thread");
    }
}
