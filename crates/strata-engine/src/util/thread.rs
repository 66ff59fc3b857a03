//! The one way Strata starts a thread. Every background thread has a name (it shows in
//! `top -H`, panics and debuggers), and a failure to start one is an error the caller
//! sees, not a panic. clippy's `disallowed-methods` bans `std::thread::spawn` and
//! `Builder::spawn` elsewhere, so this is the seam a test harness or a different
//! runtime replaces.

use std::io;
use std::thread::JoinHandle;

/// Starts a thread named `name` running `body`.
pub fn spawn<F, T>(name: impl Into<String>, body: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    #[allow(clippy::disallowed_methods)] // the one place a thread is started
    std::thread::Builder::new().name(name.into()).spawn(body)
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
}
